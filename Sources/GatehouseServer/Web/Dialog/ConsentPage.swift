import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// The consent page ("Continue as …", one row per permission), as the login dialog and the device page show it.
/// The publish step of the login dialog is a page of its own (``DialogPages``).
struct ConsentPage: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    /// What the page asks, and where its form goes.
    struct Content {
        /// The permissions the person may allow or not, in the order listed.
        var ask: [String]
        var plan: LoginAttempt.ConsentPlan
        /// The form's `dialog` field: what its handler needs to find the dialog again.
        var dialog: String
        /// Where the form posts; nil: the login dialog's consent step.
        var formAction: String?
        /// Whether the page says the person's data access expired and Continue renews it.
        var mentionsRenewal: Bool
    }

    func render(_ content: Content, app: AppRecord, user: UserRecord, request: Request) async throws -> Response {
        let (csrf, cookie) = BrowserSessions(services: services).csrfToken(request)
        let plan = content.plan
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        let html = pages.render(
            "consent",
            [
                "appName": app.name, "appID": app.id, "csrf": csrf, "formAction": content.formAction ?? "",
                "dialog": content.dialog, "userName": user.fullName, "userFirstName": user.firstName,
                "userPicture": Self.picture(app: app, scopedID: scoped),
                "ask": content.ask.map(Self.row), "unavailable": plan.unavailable.map(Self.row),
                "hasAlreadyGranted": !plan.alreadyGranted.isEmpty,
                "alreadyGranted": plan.alreadyGranted.map { Permission.info($0)?.title ?? $0 }.joined(separator: ", "),
                "renewsDataAccess": content.mentionsRenewal,
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// The person's picture as the app sees it, at the size the dialog pages show.
    static func picture(app: AppRecord, scopedID: String) -> String { "/pictures/\(app.id)/\(scopedID)?size=112" }

    /// One permission's row; `public_profile` cannot be unticked.
    static func row(_ name: String) -> [String: Any] {
        let info = Permission.info(name)
        return [
            "name": name, "title": info?.title ?? name, "reveals": info?.reveals ?? "",
            "required": name == Permission.publicProfile,
        ]
    }
}
