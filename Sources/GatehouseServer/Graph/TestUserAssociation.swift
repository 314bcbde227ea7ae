import GatehouseCore
import Foundation
import GatehouseProtocol

/// Test users held by more than one app. `POST /{app-id}/accounts/test-users` with `uid` and `owner_access_token`
/// (the app token of an app the test user already belongs to) adds one to the calling app;
/// `DELETE /{app-id}/accounts/test-users?uid=` takes it away again, leaving it to its other apps.
///
/// The app a test user was created by is `UserRecord.testUserOfAppID`; the others are its associations
/// (`UserStore.associatedApps`). Each app sees the person under its own app-scoped id, as for everyone.
extension TestUserEndpoints {
    /// Whether `user` is a test user of `appID`: created by it, or associated with it since.
    static func holds(_ appID: String, _ user: UserRecord, services: GatehouseServices) async throws -> Bool {
        guard let owner = user.testUserOfAppID else { return false }
        if owner == appID { return true }
        return try await services.storage.users.associatedApps(testUserID: user.id).contains(appID)
    }

    /// Whether `user` may log in to `appID` in development mode's picker: anyone but a test user, and a test user
    /// of that app.
    static func mayLogIn(_ user: UserRecord, to appID: String, services: GatehouseServices) async throws -> Bool {
        guard user.testUserOfAppID != nil else { return true }
        return try await holds(appID, user, services: services)
    }

    /// `POST /{app-id}/accounts/test-users?uid=…&owner_access_token=…`: `{"success":true}`, and with
    /// `installed` (the default) the app is installed with `permissions`, as at creation.
    func associate(_ call: GraphCall, app: AppRecord, uid: String) async throws -> GraphReply {
        guard let ownerToken = call.param("owner_access_token"), !ownerToken.isEmpty else {
            throw GraphFailure(.invalidParameter("The parameter owner_access_token is required"))
        }
        let permissions = try Self.permissions(call)
        guard case .success(.app(let owner)) = try await services.tokens.resolve(ownerToken) else {
            throw GraphFailure(.ownerAccessTokenInvalid)
        }
        let users = services.storage.users
        guard uid.count <= 20, uid.allSatisfy(\.isNumber),
            let userID = try await users.userID(appID: owner.id, scopedID: uid),
            let user = try await users.find(id: userID),
            try await Self.holds(owner.id, user, services: services)
        else { throw GraphFailure(.notTestUserOfOwner(uid)) }
        if try await Self.holds(app.id, user, services: services) {
            throw GraphFailure(.testUserAlreadyAssociated)
        }
        // The calling app's cap counts its associated test users as well as those it created.
        try await TestUserLimits(services: services).checkCap(appID: app.id)
        guard try await users.associate(testUserID: user.id, appID: app.id, at: services.clock.now()) else {
            throw GraphFailure(.testUserAlreadyAssociated)
        }
        if Self.installed(call) { try await grant(user, app: app, permissions: permissions) }
        return .success
    }

    /// `DELETE /{app-id}/accounts/test-users?uid=…`: the app's grant and tokens go, and the test user stays with
    /// its other apps. When the app created it, the app it was associated with first holds it from then on. A
    /// test user's only app cannot let it go: `(#2902)`, as Facebook answers; `DELETE /{test-user-id}` deletes it.
    func remove(_ call: GraphCall, app: AppRecord) async throws -> GraphReply {
        guard let uid = call.param("uid"), !uid.isEmpty else {
            throw GraphFailure(.invalidParameter("The parameter uid is required"))
        }
        let users = services.storage.users
        guard uid.count <= 20, uid.allSatisfy(\.isNumber),
            let userID = try await users.userID(appID: app.id, scopedID: uid),
            var user = try await users.find(id: userID),
            try await Self.holds(app.id, user, services: services)
        else { throw GraphFailure(.notTestUserOfApp(uid)) }
        if user.testUserOfAppID == app.id {
            guard let next = try await users.associatedApps(testUserID: user.id).first(where: { $0 != app.id }) else {
                throw GraphFailure(.cannotRemoveTestAccount)
            }
            user.testUserOfAppID = next
            try await users.update(user)
            _ = try await users.dissociate(testUserID: user.id, appID: next)
        } else {
            _ = try await users.dissociate(testUserID: user.id, appID: app.id)
        }
        let now = services.clock.now()
        try await services.storage.grants.delete(appID: app.id, userID: user.id)
        try await services.storage.tokens.revokeAll(appID: app.id, userID: user.id, at: now)
        return .success
    }

    /// `POST /{test-user-id}` with `name` and/or `password`, and the token of an app the test user belongs to.
    /// A new password ends the test user's sessions and tokens, as every password change does.
    func update(_ node: UserNode, call: GraphCall, caller: Caller) async throws -> GraphReply {
        guard case .app(let app) = caller, try await Self.holds(app.id, node.user, services: services) else {
            throw GraphFailure(.unsupportedRequest(method: "post", objectID: node.scopedID))
        }
        let name = call.param("name"), password = call.param("password")
        guard name != nil || password != nil else {
            throw GraphFailure(.invalidParameter("The parameter name or password is required"))
        }
        var user = node.user
        if let name {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 200 else {
                throw GraphFailure(.invalidParameter("name must be 1 to 200 characters"))
            }
            (user.firstName, user.lastName) = Self.names(name)
        }
        if let password {
            guard (6...128).contains(password.count) else {
                throw GraphFailure(.invalidParameter("password must be 6 to 128 characters"))
            }
            // The login hasher's work, once per change: counted like a creation.
            try await TestUserLimits(services: services).reserveUpdate(appID: app.id)
            try await services.accounts.changePassword(of: user, to: password)
        } else {
            try await services.storage.users.update(user)
        }
        return .success
    }
}
