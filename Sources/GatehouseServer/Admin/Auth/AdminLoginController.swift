import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// `GET|POST /console/login` and `POST /console/logout`: the console's admin login (production mode).
///
/// CSRF-protected like the dialog pages (double-submit `gh_csrf`), throttled like them (per account and per
/// IP, 429 once spent), and every POST answers `303 See Other`.
struct AdminLoginController: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    private var admins: AdminAccounts { AdminAccounts(services: services) }
    private var csrf: BrowserSessions { BrowserSessions(services: services) }
    private var forms: PageForms { PageForms(services: services, pages: pages) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.login)) { request, _ in try await show(request) }
        router.post(RouterPath(PagePath.Console.login)) { request, context in try await login(request, context) }
        router.post(RouterPath(PagePath.Console.logout)) { request, context in try await logout(request, context) }
    }

    func show(_ request: Request) async throws -> Response {
        let next = Self.safeNext(request.uri.queryParameters["next"].map(String.init))
        if try await admins.current(request) != nil { return PageRenderer.seeOther(next) }
        let failed = request.uri.queryParameters["error"] != nil
        return page(
            request, next: next, email: "", status: failed ? .unauthorized : .ok,
            error: failed ? "The email or password you entered is incorrect." : nil)
    }

    func login(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request, limit: min(services.configuration.maxBodyBytes, 64 * 1024)) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let next = Self.safeNext(form["next"])
        let email = String((form["email"] ?? "").prefix(320)), password = form["password"] ?? ""
        let admin: AdminAccountRecord
        switch try await PasswordCheck.admins(services).admin(email: email, password: password, ip: context.client.ip) {
        case .throttled(let seconds, let minutes):
            services.logger.notice("console login refused", metadata: ["reason": "too many attempts"])
            services.metrics.login(.limited, console: true)
            var response = page(
                request, next: next, email: email, status: .tooManyRequests,
                error: "Too many failed attempts. Wait \(minutes) minute\(minutes == 1 ? "" : "s") and try again.")
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .refused:
            services.logger.info("console login refused", metadata: ["reason": "bad credentials"])
            services.metrics.login(.failure, console: true)
            return PageRenderer.seeOther(PagePath.Console.login(next: next, failed: true))
        case .accepted(let account):
            admin = account
        }
        let cookie = try await admins.startSession(adminID: admin.id)
        await services.loginEvents.succeeded(.admin, id: admin.id)
        services.logger.notice("console login", metadata: ["admin": "\(admin.id)"])
        services.metrics.login(.success, console: true)
        return PageRenderer.seeOther(next, cookies: [cookie])
    }

    func logout(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        if case .refused(let page) = await forms.requireCSRF(request, limit: 16 * 1024, ifUnreadable: .expired) {
            return page
        }
        let cookie = try await admins.endSession(request)
        return PageRenderer.seeOther(PagePath.Console.login, cookies: [cookie])
    }

    /// Only console/admin paths on this server (``LocalRedirect``): never an absolute URL, `//host` or a control character.
    static func safeNext(_ raw: String?) -> String {
        LocalRedirect.path(raw, allowed: [PagePath.Console.home, "/admin"]) ?? PagePath.Console.home
    }

    private func page(_ request: Request, next: String, email: String, status: HTTPResponse.Status, error: String?)
        -> Response
    {
        let (token, cookie) = csrf.csrfToken(request)
        let html = pages.render("admin-login", ["csrf": token, "next": next, "email": email, "error": error ?? ""])
        return PageRenderer.htmlResponse(
            status: status, html: html, secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }
}
