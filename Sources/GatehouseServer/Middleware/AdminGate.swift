import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The seam that keeps the developer console and the admin API behind an admin login in production mode.
///
/// Add it once to the router (``GatehouseApp/router(services:pages:)`` does, in production mode only); it guards
/// every path ``isProtected(_:)`` names (`/console…` and `/admin/…`) except the login page itself:
/// - development mode: passes every request through untouched (the console is open, as issue 5 wants), so the
///   router leaves it out there;
/// - production mode, no live `gh_admin` session: `/console…` pages get `303 See Other` to
///   `/console/login?next=<path>`; `/admin/…` API calls are judged by ``AdminAuthorization`` (a session or an
///   admin token): `401`/`403`, as a problem document under `/admin/api/v1` and Graph-shaped elsewhere;
/// - production mode, logged in: passes through. Handlers that want to know who is acting call
///   `AdminAccounts(services:).current(request)`.
///
/// State-changing console forms still need their own CSRF token (`BrowserSessions.csrfToken` /
/// `csrfValid`), exactly like the dialog pages.
package struct AdminGate: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// Reachable without a session: the login form and its POST, and the admin API's OpenAPI document (a tool
    /// reads the contract before it has a token).
    static let openPaths: Set<String> = [
        PagePath.Console.login, PagePath.Console.login + "/", "/admin/api/v1/openapi.json",
        "/admin/api/v1/openapi.yaml",
    ]

    /// Whether `path` is guarded (`/console`, `/console/…`, `/admin/…`; not `/consoles`).
    static func isProtected(_ path: String) -> Bool {
        if openPaths.contains(path) { return false }
        if PagePath.Console.contains(path) { return true }
        return path.hasPrefix("/admin/") || path == "/admin"
    }

    /// The path as a router might read it: percent-decoded, repeated slashes collapsed, `.` and `..` resolved.
    /// The gate decides on this form, so `//console/apps`, `/./console` or `/%63onsole` are guarded like `/console`.
    package static func normalized(_ raw: String) -> String {
        let decoded = raw.removingPercentEncoding ?? raw
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." { _ = segments.popLast(); continue }
            segments.append(segment)
        }
        let trailing = decoded.count > 1 && decoded.hasSuffix("/") && !segments.isEmpty ? "/" : ""
        return "/" + segments.joined(separator: "/") + trailing
    }

    /// Whether ``normalized(_:)`` would return `raw` unchanged: it starts with `/` and has no `%`, no empty
    /// segment (`//`) and no segment starting with a dot. Most paths are like this, and checking costs one pass
    /// over the bytes instead of decoding, splitting and joining.
    package static func isNormal(_ raw: String) -> Bool {
        var previous: UInt8 = 0
        var first = true
        for byte in raw.utf8 {
            if first {
                guard byte == UInt8(ascii: "/") else { return false }
                first = false
            } else if previous == UInt8(ascii: "/"), byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".") {
                return false
            }
            if byte == UInt8(ascii: "%") { return false }
            previous = byte
        }
        return !first
    }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard services.configuration.isProduction else { return try await next(request, context) }
        let raw = request.uri.path
        let path = Self.isNormal(raw) ? raw : Self.normalized(raw)
        guard Self.isProtected(path) else {
            return try await next(request, context)
        }
        if path.hasPrefix("/admin") {
            // The retired routes answer 410 to anyone: a client that still calls them learns where to go.
            if RetiredAdminRoutes.isRetired(path) { return try await next(request, context) }
            // The API takes an admin token or a session (``AdminAuthorization``); v1 answers problem documents.
            let decision = await AdminAuthorization(services: services).decide(request)
            if decision.isAllowed { return try await next(request, context) }
            if path.hasPrefix("/admin/api/v1/") || path == "/admin/api/v1", let problem = decision.problem {
                return problem.response
            }
            if let refusal = decision.graphResponse(version: services.configuration.defaultGraphVersion) {
                return refusal
            }
            return try await next(request, context)
        }
        if try await AdminAccounts(services: services).current(request) != nil {
            return try await next(request, context)
        }
        let next = request.method == .get ? path : PagePath.Console.home
        return PageRenderer.seeOther(PagePath.Console.login(next: next))
    }
}
