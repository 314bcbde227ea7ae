import GatehouseCore
import Foundation
import GatehouseProtocol

/// `/{app-id}/accounts/test-users` and `DELETE /{test-user-id}`, with the app's token.
struct TestUserEndpoints: Sendable {
    let services: GatehouseServices

    func handle(_ call: GraphCall, appID: String, caller: Caller) async throws -> GraphReply {
        guard case .app(let app) = caller, app.id == appID else {
            throw GraphFailure(.appTokenRequired)
        }
        switch call.method {
        case .post:
            if let uid = call.param("uid") { return try await associate(call, app: app, uid: uid) }
            if call.param("owner_access_token") != nil {
                throw GraphFailure(.invalidParameter("The parameter uid is required"))
            }
            return try await create(call, app: app)
        case .get: return try await list(call, app: app)
        case .delete: return try await remove(call, app: app)
        }
    }

    /// `installed` (true unless `false` or `0`, as Facebook defaults it).
    static func installed(_ call: GraphCall) -> Bool {
        call.param("installed").map { $0 == "true" || $0 == "1" } ?? true
    }

    /// `permissions`, each one known at the call's version.
    static func permissions(_ call: GraphCall) throws -> [String] {
        let permissions = Permission.parseScope(call.param("permissions") ?? "")
        // A permission Facebook removed is as unknown as a misspelled one at versions after its removal.
        let removed = Permission.removed(permissions, at: call.version)
        if let unknown = permissions.first(where: { !Permission.isKnown($0) || removed.contains($0) }) {
            throw GraphFailure(.invalidParameter("Invalid permission: \(unknown)"))
        }
        return permissions
    }

    /// A test user's first and last name from `name`: the first word, and the rest ("User" when there is none).
    static func names(_ name: String) -> (first: String, last: String) {
        let words = name.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
        return (words.first ?? "Test", words.count > 1 ? words.dropFirst().joined(separator: " ") : "User")
    }

    private func create(_ call: GraphCall, app: AppRecord) async throws -> GraphReply {
        let installed = Self.installed(call)
        let permissions = try Self.permissions(call)
        // Deprecated by Facebook, still accepted: the person's locale (`en_US` when left out).
        let locale = call.param("locale")
        if let locale, let problem = UserFieldValue.named(UserField.locale.name)?.problem(locale) {
            throw GraphFailure(.invalidParameter(problem))
        }
        let limits = TestUserLimits(services: services)
        try await limits.reserveCreation(appID: app.id)
        let (first, last) = Self.names(call.param("name") ?? "Open Graph Test User")
        let tag = services.random.alphanumeric(bits: 40).lowercased()
        let password = services.random.alphanumeric(bits: 72)
        var newUser = NewUser(
            email: "\(first.lowercased().filter(\.isLetter))_\(tag)_test@tfbnw.net", password: password,
            firstName: first, lastName: last, testUserOfAppID: app.id)
        if let locale { newUser.profile[UserField.locale.name] = locale }
        // Not the login hasher: see ``TestUserLimits/passwordCost``.
        newUser.passwordHash = try await limits.hashGeneratedPassword(password)
        let user = try await services.accounts.createUser(newUser)
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        var out: JSONObject = ["id": .string(scoped)]
        if installed {
            out["access_token"] = .string(try await install(user, app: app, permissions: permissions))
        }
        out["login_url"] = .string(loginURL(app: app, scopedID: scoped, userID: user.id))
        out["email"] = .string(user.email)
        out["password"] = .string(password)
        return .json(.object(out))
    }

    /// Grants the permissions and returns a fresh token, as Facebook does for `installed=true`.
    func install(_ user: UserRecord, app: AppRecord, permissions: [String]) async throws -> String {
        try await grant(user, app: app, permissions: permissions)
        return try await services.tokens.mintUserToken(
            app: app, userID: user.id, lifetime: Lifetimes.longLivedToken, origin: "test_user"
        ).0
    }

    /// Installs the app for the test user: `public_profile` and `permissions` granted (`openid` is a scope only).
    func grant(_ user: UserRecord, app: AppRecord, permissions: [String]) async throws {
        let now = services.clock.now()
        var granted = [Permission.publicProfile]
        for p in permissions where !granted.contains(p) && p != "openid" { granted.append(p) }
        try await services.storage.grants.save(
            GrantRecord(
                appID: app.id, userID: user.id, granted: granted, declined: [], createdAt: now, updatedAt: now,
                lastLoginAt: now))
    }

    /// A short-lived link to log a browser in as the test user (``TestUserLogin``; development mode only).
    func loginURL(app: AppRecord, scopedID: String, userID: String) -> String {
        TestUserLogin.url(services: services, app: app, scopedID: scopedID, userID: userID)
    }

    private func list(_ call: GraphCall, app: AppRecord) async throws -> GraphReply {
        let users = try await services.storage.users.testUsers(appID: app.id)
        let limit = min(max(Int(call.param("limit") ?? "") ?? 50, 1), 500)
        let start = call.param("after").flatMap(UserEndpoints.offset(fromCursor:)).map { $0 + 1 } ?? 0
        let slice = start < users.count ? Array(users[start..<min(start + limit, users.count)]) : []
        // Each installed user on the page gets a freshly minted token: counted (at most) before any is minted.
        try await TestUserLimits(services: services).reserveTokens(appID: app.id, count: slice.count)
        var data: [JSONValue] = []
        for user in slice {
            let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
            var entry: JSONObject = [
                "id": .string(scoped), "login_url": .string(loginURL(app: app, scopedID: scoped, userID: user.id)),
            ]
            if try await services.storage.grants.find(appID: app.id, userID: user.id) != nil {
                entry["access_token"] = .string(
                    try await services.tokens.mintUserToken(
                        app: app, userID: user.id, lifetime: Lifetimes.longLivedToken, origin: "test_user"
                    ).0)
            }
            data.append(.object(entry))
        }
        var paging = JSONObject([])
        if !slice.isEmpty {
            paging["cursors"] = [
                "before": .string(UserEndpoints.cursor(start)),
                "after": .string(UserEndpoints.cursor(start + slice.count - 1)),
            ]
            if start + slice.count < users.count {
                var params: [(String, String)] = []
                if let token = call.accessToken { params.append(("access_token", token)) }
                params += [("limit", String(limit)), ("after", UserEndpoints.cursor(start + slice.count - 1))]
                paging["next"] = .string(
                    "\(services.configuration.baseURL)/\(call.version)/\(app.id)/accounts/test-users?"
                        + FormEncoding.encode(params))
            }
        }
        return .json(["data": .array(data), "paging": .object(paging)])
    }

    /// `DELETE /{test-user-id}` with the token of an app the test user belongs to: gone from every app.
    func delete(_ node: UserNode, caller: Caller) async throws -> GraphReply {
        guard case .app(let app) = caller, try await Self.holds(app.id, node.user, services: services) else {
            throw GraphFailure(.cannotDeleteTestAccount)
        }
        // Its old tokens then answer as every deleted person's do (190/458), whichever way the person went, and
        // each live one is announced revoked as theirs are.
        let deletion = AccountDeletion(services: services)
        try await deletion.rememberDeleted(node.user)
        try await deletion.erase(node.user)
        // No app is told (Facebook tells none when an app deletes its test user); operators still hear of it.
        await services.events.record(
            .accountDeleted, appID: app.id, personID: node.user.id, ["apps_told": "0", "by": "app"])
        return .success
    }
}
