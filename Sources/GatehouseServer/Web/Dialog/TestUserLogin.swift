import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Test users' `login_url` (`/testuser/login`): development mode only, short-lived, and a POST.
///
/// - The link is signed with the owning app's secret over the user **and an expiry** (``lifetime``), so a leaked
///   link stops working within the hour.
/// - Opening it (GET) only shows a confirmation page; the login happens on the POST, which carries the CSRF token,
///   so an `<img src>` or a prefetch cannot log a browser in as someone else (login CSRF).
/// - Production mode refuses both with 404: a password-free login has no place on a real server.
struct TestUserLogin: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    /// How long a `login_url` works after the test-users API handed it out.
    static let lifetime: TimeInterval = 3600

    private var sessions: BrowserSessions { BrowserSessions(services: services) }
    private var secure: Bool { services.configuration.usesSecureCookies }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.testUserLogin)) { request, _ in try await confirm(request) }
        router.post(RouterPath(PagePath.testUserLogin)) { request, _ in try await login(request) }
    }

    /// The signed link for one test user, valid for ``lifetime`` from now.
    static func url(services: GatehouseServices, app: AppRecord, scopedID: String, userID: String) -> String {
        let expires = Int(services.clock.now().addingTimeInterval(lifetime).timeIntervalSince1970)
        let sig = AppSecretProof.compute(
            accessToken: signedText(userID: userID, expires: expires), appSecret: app.secret)
        return "\(services.configuration.baseURL)/testuser/login?"
            + FormEncoding.encode([
                ("app_id", app.id), ("user_id", scopedID), ("expires", String(expires)), ("sig", sig),
            ])
    }

    static func signedText(userID: String, expires: Int) -> String { "test-user-login:\(userID):\(expires)" }

    func confirm(_ request: Request) async throws -> Response {
        guard services.configuration.isDevelopment else { return notFound() }
        let fields = Dictionary(FormEncoding.decode(request.uri.query ?? "") ?? [], uniquingKeysWith: { a, _ in a })
        guard let (app, user, scoped) = try await verified(fields) else { return invalid() }
        let (csrf, cookie) = sessions.csrfToken(request)
        let html = pages.render(
            "testuser-login",
            [
                "csrf": csrf, "appID": app.id, "appName": app.name, "scopedID": scoped, "userName": user.fullName,
                "expires": fields["expires"] ?? "", "sig": fields["sig"] ?? "",
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: secure, cookies: cookie.map { [$0] } ?? [])
    }

    func login(_ request: Request) async throws -> Response {
        guard services.configuration.isDevelopment else { return notFound() }
        let fields: [String: String]
        switch await PageForms(services: services, pages: pages).requireCSRF(
            request, limit: 16 * 1024, ifUnreadable: .expired)
        {
        case .refused(let page): return page
        case .accepted(let body): fields = body.fields
        }
        guard let (_, linked, _) = try await verified(fields) else { return invalid() }
        // A test user put in an account state meets its page, as on every login (``AccountGate``).
        return try await AccountGate(services: services, pages: pages).finishLogin(
            linked, next: PagePath.Account.home, request: request)
    }

    /// The app, test user and scoped id behind a link whose signature matches and whose expiry has not passed.
    private func verified(_ fields: [String: String]) async throws -> (AppRecord, UserRecord, String)? {
        guard let appID = fields["app_id"], let scoped = fields["user_id"], let sig = fields["sig"],
            let expires = fields["expires"].flatMap(Int.init),
            Double(expires) > services.clock.now().timeIntervalSince1970,
            let app = try await services.storage.apps.find(id: appID),
            let userID = try await services.storage.users.userID(appID: appID, scopedID: scoped),
            let user = try await services.storage.users.find(id: userID),
            try await TestUserEndpoints.holds(app.id, user, services: services),
            AppSecretProof.matches(
                sig, accessToken: Self.signedText(userID: userID, expires: expires), appSecret: app.secret)
        else { return nil }
        return (app, user, scoped)
    }

    private func invalid() -> Response {
        pages.errorPage(
            .badRequest, headline: "This login link is not valid",
            detail: "Test-user login links come from the test-users API of an app the user belongs to,"
                + " and work for an hour.")
    }

    private func notFound() -> Response {
        pages.errorPage(
            .notFound, headline: "Page not found", detail: "Test-user login links work in development mode only.")
    }
}
