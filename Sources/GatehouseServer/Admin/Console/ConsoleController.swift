import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The developer console at `/console`: apps, people, tokens, error injection, the clock, the Graph API
/// Explorer, and export/import. Open in development mode; in production mode only for a signed-in admin.
///
/// Pages are plain HTML forms (the CSP allows no scripts). Every POST checks the CSRF token and answers
/// 303 to a page with a notice, or 400 with the reason when the input was refused.
struct ConsoleController: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer
    let access: ConsoleAccess

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    var forms: PageForms { PageForms(services: services, pages: pages) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.home), use: home)
    }

    /// `GET /console`: how many apps, people, live tokens and injected errors there are.
    @Sendable func home(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await page(request, "console-home", title: "Console", nav: "home") {
            let storage = services.storage
            let users = try await storage.users.list()
            return [
                "appCount": try await storage.apps.list().count, "userCount": users.count,
                "testUserCount": users.filter { $0.testUserOfAppID != nil }.count,
                "tokenCount": try await storage.tokens.live(appID: nil, userID: nil, now: services.clock.now()).count,
                "injectionCount": try await storage.emulator.injections().count,
            ]
        }
    }

    static let navigation: [(key: String, label: String, href: String)] = [
        ("home", "Console", PagePath.Console.home), ("apps", "Apps", PagePath.Console.apps),
        ("users", "People", PagePath.Console.users), ("tokens", "Tokens", PagePath.Console.tokens),
        ("activity", "Activity", PagePath.Console.activity), ("mail", "Mail", PagePath.Console.mail),
        ("social", "Posts & requests", PagePath.Console.social), ("errors", "Error injection", PagePath.Console.errors),
        ("clock", "Clock", PagePath.Console.clock), ("explorer", "Graph API Explorer", PagePath.Console.explorer),
        ("data", "Export / import", PagePath.Console.data),
        ("admin", "Admin tokens & audit", PagePath.Console.adminTokens),
    ]

    static let notices: [String: String] = [
        "created": "Created.", "saved": "Saved.", "secret": "A new app secret was issued.",
        "revoked": "The token was revoked.",
        "injected": "The error is injected. Matching Graph calls now fail with it.", "cleared": "Cleared.",
        "clock": "The clock moved.", "imported": "Imported. Everything was replaced with the file's contents.",
        "accepted": "Accepted. The request stays in /me/apprequests until the app deletes it, as on Facebook.",
        "invited": "The invitation is sent: its link lets that address sign up for 14 days, once.",
        "resent": "Queued again: the notification leaves within a second.",
    ]

    /// Renders a console page, or the refusal when the visitor may not use the console.
    func page(
        _ request: Request, _ template: String, title: String, nav: String, status: HTTPResponse.Status = .ok,
        error: String? = nil, _ values: () async throws -> [String: Any]
    ) async throws -> Response {
        guard await access.allows(request) else { return denied() }
        let (csrf, cookie) = sessions.csrfToken(request)
        var all = try await values()
        let clock = ClockControl(services: services).status()
        all["csrf"] = csrf
        all["pageTitle"] = all["pageTitle"] ?? title
        all["nav"] = Self.navigation.map {
            ["label": $0.label, "href": $0.href, "current": $0.key == nav] as [String: Any]
        }
        all["clockNow"] = Self.timestamp(clock.now)
        all["clockMoved"] = clock.offset != 0
        all["clockOffset"] = Self.offsetText(clock.offset)
        all["notice"] = request.uri.queryParameters.get("notice").flatMap { Self.notices[$0] } ?? ""
        all["error"] = error ?? ""
        let html = pages.render(template, all)
        return PageRenderer.htmlResponse(
            status: status, html: html, secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// A console form post: access, size and CSRF checks, then `work`, which returns where to go next.
    /// A `ConsoleInputError` (or an `AccountError`) re-renders as a 400 page naming the problem.
    func action(_ request: Request, limit: Int? = nil, _ work: (FormBody) async throws -> String) async throws
        -> Response
    {
        guard await access.allows(request) else { return denied() }
        let form: FormBody
        switch await forms.requireCSRF(request, limit: limit) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        do {
            return PageRenderer.seeOther(try await work(form))
        } catch let error as ConsoleInputError {
            return try await refused(request, error.message)
        } catch let error as AccountError {
            return try await refused(request, error.description)
        } catch let error as ErrorInjector.InjectionError {
            return try await refused(request, error.description)
        } catch let error as ClockControl.ClockError {
            return try await refused(request, error.description)
        }
    }

    func refused(_ request: Request, _ message: String, status: HTTPResponse.Status = .badRequest) async throws
        -> Response
    {
        try await page(request, "console-message", title: "That did not work", nav: "", status: status, error: message)
        { [:] }
    }

    func denied() -> Response {
        pages.errorPage(
            .forbidden, headline: "The console needs an admin login",
            detail: "In production mode only Gatehouse admins can use the developer console.")
    }

    // MARK: Shared values

    func appOptions(selected: String? = nil) async throws -> [[String: Any]] {
        try await services.storage.apps.list().map { ["id": $0.id, "name": $0.name, "selected": $0.id == selected] }
    }

    func peopleOptions(selected: String? = nil) async throws -> [[String: Any]] {
        try await services.storage.users.list().map {
            ["id": $0.id, "name": $0.fullName, "email": $0.email, "selected": $0.id == selected]
        }
    }

    static func timestamp(_ date: Date) -> String { PageDates.utc(date, "yyyy-MM-dd HH:mm 'UTC'") }

    static func offsetText(_ offset: TimeInterval) -> String {
        let total = Int(offset), days = total / 86400, hours = (total % 86400) / 3600, minutes = (total % 3600) / 60
        if total == 0 { return "not at all" }
        return "+"
            + [days > 0 ? "\(days)d" : nil, hours > 0 ? "\(hours)h" : nil, minutes > 0 ? "\(minutes)m" : nil]
            .compactMap { $0 }.joined(separator: " ")
    }
}

/// A console input the server refuses, with the reason shown to the developer.
struct ConsoleInputError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
