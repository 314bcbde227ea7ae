import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// "Who do you want to be?": in development mode the login page lists the app's test users and the
/// seeded people, each a one-click login without a password, and offers to create a test user.
///
/// Both forms carry the CSRF token and the dialog query, and end with a 303 back to the dialog, which
/// then continues exactly as after a password login. In production mode neither route exists (404).
struct DevIdentityPicker: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    private var sessions: BrowserSessions { BrowserSessions(services: services) }
    private var enabled: Bool { services.configuration.mode == .development }
    static let maxListed = 25

    func register(on router: Router<GatehouseRequestContext>) {
        router.post("/dialog/oauth/pick") { request, _ in try await pick(request) }
        router.post("/dialog/oauth/test-user") { request, _ in try await createTestUser(request) }
    }

    /// The template values for the picker, or nothing outside development mode.
    func values(app: AppRecord) async throws -> [String: Any] {
        guard enabled else { return [:] }
        let testUsers = try await services.storage.users.testUsers(appID: app.id)
        let people = try await services.storage.users.list().filter { $0.testUserOfAppID == nil }
        let listed = (testUsers + people).prefix(Self.maxListed).map { user -> [String: Any] in
            ["id": user.id, "name": user.fullName, "email": user.email, "testUser": user.testUserOfAppID != nil]
        }
        // The permissions behind the field table's profile fields (`email`, `user_birthday`, …), in table order.
        let offered = Permission.profilePermissions
        return [
            "picker": true, "people": Array(listed),
            "testPermissions": offered.map { ["name": $0, "title": Permission.info($0)?.title ?? $0] },
        ]
    }

    func pick(_ request: Request) async throws -> Response {
        guard enabled else { return notFound() }
        guard let form = try await readForm(request), sessions.csrfValid(request, formToken: form["csrf_token"]) else {
            return expired()
        }
        guard let target = try await target(form),
            let userID = form["user_id"], userID.count <= 32,
            let user = try await services.storage.users.find(id: userID),
            user.testUserOfAppID == nil || user.testUserOfAppID == target.app.id
        else {
            return page(.badRequest, "This person cannot be picked", "Go back to the app and start again.")
        }
        services.logger.info("dev login by pick", metadata: ["user": "\(user.id)"])
        return try await logIn(user, request: request, path: target.path, rawDialog: target.raw)
    }

    func createTestUser(_ request: Request) async throws -> Response {
        guard enabled else { return notFound() }
        guard let body = await FormBody.read(request, limit: services.configuration.maxBodyBytes) else {
            return expired()
        }
        let form = body.fields
        guard sessions.csrfValid(request, formToken: form["csrf_token"]) else { return expired() }
        guard let target = try await target(form) else {
            return page(.badRequest, "This login link is no longer valid", "Go back to the app and start again.")
        }
        let app = target.app
        let permissions = body.all("permission").filter(Permission.isKnown)
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let words = name.split(separator: " ").map(String.init)
        guard !words.isEmpty, name.count <= 80 else {
            return page(.badRequest, "A test user needs a name", "Go back and type a name.")
        }
        let first = words[0], last = words.count > 1 ? words.dropFirst().joined(separator: " ") : "User"
        let tag = services.random.alphanumeric(bits: 40).lowercased()
        let user = try await services.accounts.createUser(
            NewUser(
                email: "\(first.lowercased().filter { $0.isASCII && $0.isLetter })_\(tag)_test@tfbnw.net",
                password: services.random.alphanumeric(bits: 72), firstName: first, lastName: last,
                testUserOfAppID: app.id))
        if !permissions.isEmpty {
            let now = services.clock.now()
            try await services.storage.grants.save(
                GrantRecord(
                    appID: app.id, userID: user.id,
                    granted: [Permission.publicProfile] + permissions.filter { $0 != Permission.publicProfile },
                    declined: [], createdAt: now, updatedAt: now, lastLoginAt: now))
        }
        services.logger.info("dev test user created", metadata: ["app": "\(app.id)", "user": "\(user.id)"])
        return try await logIn(user, request: request, path: target.path, rawDialog: target.raw)
    }

    /// The dialog to return to and its app: the login dialog, or the feed or requests dialog named by `kind`.
    private func target(_ form: [String: String]) async throws -> (path: String, raw: String, app: AppRecord)? {
        let raw = DialogController.carriedQuery(form["dialog"] ?? "")
        if let kind = SocialDialogKind(rawValue: form["kind"] ?? "") {
            guard
                case .ok(let dialog) = try await SocialDialogRequest.parse(
                    kind: kind, query: raw, findApp: services.storage.apps.find(id:)),
                let app = try await services.storage.apps.find(id: dialog.appID)
            else { return nil }
            return ("/dialog/\(kind.rawValue)", raw, app)
        }
        guard
            case .success(let (_, app)) = try await DialogRequest.parse(
                query: raw, findApp: services.storage.apps.find(id:))
        else { return nil }
        return ("/dialog/oauth", raw, app)
    }

    private func logIn(_ picked: UserRecord, request: Request, path: String, rawDialog: String) async throws -> Response
    {
        // Picking a person is logging in as them: a checkpointed, unconfirmed or disabled person meets their page.
        let next = { (session: BrowserSessionRecord?) in
            path + "?" + rawDialog
                + (session.map { "&gh_reauth=\(Int($0.authenticatedAt.timeIntervalSince1970))" } ?? "")
        }
        let user: UserRecord
        switch try await AccountGate(services: services, pages: pages).afterPassword(
            picked, next: next, request: request)
        {
        case .page(let response): return response
        case .proceed(let person): user = person
        }
        if let old = try await sessions.current(request) { try await services.storage.sessions.delete(id: old.0.id) }
        let (session, cookie) = try await sessions.start(userID: user.id)
        let mark = Int(session.authenticatedAt.timeIntervalSince1970)
        return PageRenderer.seeOther(path + "?" + rawDialog + "&gh_reauth=\(mark)", cookies: [cookie])
    }

    private func readForm(_ request: Request) async throws -> [String: String]? {
        await FormBody.read(request, limit: services.configuration.maxBodyBytes)?.fields
    }

    private func page(_ status: HTTPResponse.Status, _ headline: String, _ detail: String) -> Response {
        PageRenderer.htmlResponse(
            status: status, html: pages.render("error", ["headline": headline, "detail": detail]),
            secureCookies: services.configuration.usesSecureCookies)
    }

    private func expired() -> Response {
        page(
            .forbidden, "This form has expired",
            "For your security the form could not be accepted. Go back, reload the page and try again.")
    }

    private func notFound() -> Response { page(.notFound, "Page not found", "There is no page at this address.") }
}
