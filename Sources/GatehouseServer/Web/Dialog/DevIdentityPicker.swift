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

    private var forms: PageForms { PageForms(services: services, pages: pages) }
    private var gate: AccountGate { AccountGate(services: services, pages: pages) }
    private var enabled: Bool { services.configuration.mode == .development }
    static let maxListed = 25

    func register(on router: Router<GatehouseRequestContext>) {
        router.post(RouterPath(PagePath.Dialog.pick)) { request, _ in try await pick(request) }
        router.post(RouterPath(PagePath.Dialog.testUser)) { request, _ in try await createTestUser(request) }
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
        guard enabled else { return pages.notFoundPage() }
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let target = try await target(form),
            let userID = form["user_id"], userID.count <= 32,
            let user = try await services.storage.users.find(id: userID),
            try await TestUserEndpoints.mayLogIn(user, to: target.app.id, services: services)
        else {
            return pages.errorPage(
                .badRequest, headline: "This person cannot be picked", detail: "Go back to the app and start again.")
        }
        services.logger.info("dev login by pick", metadata: ["user": "\(user.id)"])
        // Picking a person is logging in as them: a checkpointed, unconfirmed or disabled person meets their page.
        return try await gate.finishLogin(user, next: target.back.url, request: request)
    }

    func createTestUser(_ request: Request) async throws -> Response {
        guard enabled else { return pages.notFoundPage() }
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let target = try await target(form) else { return pages.loginLinkExpiredPage() }
        let app = target.app
        let permissions = form.all("permission").filter(Permission.isKnown)
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let words = name.split(separator: " ").map(String.init)
        guard !words.isEmpty, name.count <= 80 else {
            return pages.errorPage(
                .badRequest, headline: "A test user needs a name", detail: "Go back and type a name.")
        }
        let first = words[0], last = words.count > 1 ? words.dropFirst().joined(separator: " ") : "User"
        let tag = services.random.alphanumeric(bits: 40).lowercased()
        // No password: nobody could know one, and the picker logs them in.
        var new = NewUser(
            email: "\(first.lowercased().filter { $0.isASCII && $0.isLetter })_\(tag)_test@tfbnw.net",
            password: "", firstName: first, lastName: last, testUserOfAppID: app.id)
        new.passwordHash = UserRecord.noPassword
        let user = try await services.accounts.createUser(new)
        if !permissions.isEmpty {
            let now = services.clock.now()
            try await services.storage.grants.save(
                GrantRecord(
                    appID: app.id, userID: user.id,
                    granted: [Permission.publicProfile] + permissions.filter { $0 != Permission.publicProfile },
                    declined: [], createdAt: now, updatedAt: now, lastLoginAt: now))
        }
        services.logger.info("dev test user created", metadata: ["app": "\(app.id)", "user": "\(user.id)"])
        return try await gate.finishLogin(user, next: target.back.url, request: request)
    }

    /// The dialog to return to and its app: the login dialog, or the feed or requests dialog named by `kind`.
    private func target(_ form: FormBody) async throws -> (back: DialogReturn, app: AppRecord)? {
        let kind = SocialDialogKind(rawValue: form["kind"] ?? "")
        let back = DialogReturn(kind: kind, rawQuery: form["dialog"] ?? "")
        if let kind {
            guard
                case .ok(let dialog) = try await SocialDialogRequest.parse(
                    kind: kind, query: back.query, findApp: services.storage.apps.find(id:)),
                let app = try await services.storage.apps.find(id: dialog.appID)
            else { return nil }
            return (back, app)
        }
        guard
            case .success(let (_, app)) = try await DialogRequest.parse(
                query: back.query, findApp: services.storage.apps.find(id:))
        else { return nil }
        return (back, app)
    }
}
