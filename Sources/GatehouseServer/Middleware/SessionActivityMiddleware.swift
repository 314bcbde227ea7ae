import GatehouseCore
import Foundation
import Hummingbird
import Logging

/// Records where each browser session is used (browser, address, time) for "Where you're logged in".
///
/// A request with a session cookie is recorded at most once per ``interval`` per session on this node (the
/// dialog's hot path then writes nothing most of the time); a response that starts a session is recorded at once,
/// so a new login shows up straight away. Only sessions that exist are remembered (``RecentTouches``): a cookie
/// nobody issued costs one session lookup, as it does the page itself, and leaves nothing behind.
package struct SessionActivityMiddleware: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let services: GatehouseServices
    /// The session cookie's name, worked out once: it depends only on the configuration, and working it out
    /// (``GatehouseConfiguration/usesSecureCookies`` parses the base URL) on every request was the most of
    /// what this middleware cost a Graph call.
    let sessionCookieName: String
    static let interval: TimeInterval = 300

    package init(services: GatehouseServices) {
        self.services = services
        self.sessionCookieName = SessionCookie.name(BrowserSessions.sessionCookie, services.configuration)
    }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response = try await next(request, context)
        // Graph and token calls carry no cookies and set none: they pass with two header lookups.
        guard let activity = services.storage.sessionActivity,
            request.headers[.cookie] != nil || response.headers[.setCookie] != nil
        else { return response }
        let name = sessionCookieName
        let started = response.headers[values: .setCookie].lazy.compactMap { Self.value(of: name, inSetCookie: $0) }
            .first
        let secret = started ?? SessionCookie.single(name, in: request)
        guard let secret, !secret.isEmpty, secret.count <= 128 else { return response }
        let now = services.clock.now()
        let hash = SecretHash.sha256Hex(secret)
        let recent = services.sessionTouches
        guard started != nil || !recent.seen(hash, now: now) else { return response }
        // Best effort: the page is answered whatever happens here.
        do {
            if let session = try await services.storage.sessions.find(secretHash: hash) {
                try await activity.touch(
                    sessionID: session.id, userAgent: request.headers[.userAgent], ip: context.client.ip, at: now)
                recent.record(hash, now: now)
            }
        } catch {
            services.logger.debug("session activity not recorded", metadata: ["error": "\(error)"])
        }
        return response
    }

    /// The cookie's value in a `Set-Cookie` header that sets `name` (not one that clears it).
    static func value(of name: String, inSetCookie header: String) -> String? {
        guard header.hasPrefix(name + "=") else { return nil }
        let value = header.dropFirst(name.count + 1).prefix { $0 != ";" }
        return value.isEmpty ? nil : String(value)
    }
}
