import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The person's own pages (who am I, log out) and the development helpers
/// (a stand-in redirect URI that shows what an app receives, and test users' login links).
struct AccountPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    private var sessions: BrowserSessions { BrowserSessions(services: services) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Account.home)) { request, _ in try await account(request) }
        router.post(RouterPath(PagePath.logout)) { request, _ in try await logout(request) }
        router.get(RouterPath(PagePath.devCallback)) { request, _ in try await callback(request) }
    }

    func account(_ request: Request) async throws -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        var values: [String: Any] = ["csrf": csrf]
        if let (_, user) = try await sessions.current(request) {
            values["userName"] = user.fullName
            values["email"] = user.email
        }
        return PageRenderer.htmlResponse(
            status: .ok, html: pages.render("account", values), secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }

    func logout(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await PageForms(services: services, pages: pages).requireCSRF(
            request, limit: 16 * 1024, ifUnreadable: .expired)
        {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        if let (session, _) = try await sessions.current(request) {
            try await services.storage.sessions.delete(id: session.id)
        }
        let expired = sessions.cookie(sessions.sessionCookieName, "", maxAge: 0)
        return PageRenderer.seeOther(
            form["next"].map { SettingsPages.safeNext($0) } ?? PagePath.Account.home, cookies: [expired])
    }

    /// Development stand-in for an app's redirect URI: shows the code and a ready curl command.
    func callback(_ request: Request) async throws -> Response {
        guard services.configuration.mode == .development else { return pages.notFoundPage() }
        let params = FormEncoding.decode(request.uri.query ?? "") ?? []
        let dict = Dictionary(params, uniquingKeysWith: { a, _ in a })
        let base = services.configuration.baseURL
        // The code names its app and redirect URI; the secret is never shown here.
        var clientID = "APP_ID", redirect = base + PagePath.devCallback
        if let code = dict["code"], code.utf8.count <= 256,
            let record = try await services.storage.codes.find(codeHash: SecretHash.sha256Hex(code))
        {
            clientID = record.appID
            redirect = record.redirectURI
        }
        let html = pages.render(
            "callback",
            [
                "code": dict["code"] ?? "", "error": dict["error"] ?? "", "errorReason": dict["error_reason"] ?? "",
                "baseURL": base, "clientID": clientID, "redirectURIEncoded": FormEncoding.escape(redirect),
                "graphVersion": services.configuration.defaultGraphVersion,
                "hasParams": !params.isEmpty, "params": params.map { "\($0.0) = \($0.1)" }.joined(separator: "\n"),
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies)
    }
}
