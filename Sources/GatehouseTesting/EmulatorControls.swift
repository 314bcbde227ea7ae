import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

extension GatehouseEmulator {
    /// Logs `user` in to the demo app as the login dialog would after they consented, without a browser: saves
    /// the grant and mints a 60-day token, as a code exchange does.
    ///
    /// - Parameters:
    ///   - permissions: what they grant; `public_profile` is always granted. Test users may grant permissions
    ///     the app has not had approved, as on Facebook.
    ///   - declined: what they decline (reported by `/me/permissions` as `declined`).
    public func logIn(_ user: TestUser, permissions: [String] = [], declined: [String] = []) async throws -> TestLogin {
        let storage = services.storage
        guard let appRecord = try await storage.apps.find(id: app.id) else { throw EmulatorError.notSeeded }
        guard try await storage.users.find(id: user.id) != nil else { throw EmulatorError.unknownUser(user.id) }
        let now = clock.now()
        var granted = [Permission.publicProfile]
        for permission in permissions where !granted.contains(permission) && !declined.contains(permission) { granted.append(permission) }
        try await storage.grants.save(GrantRecord(
            appID: app.id, userID: user.id, granted: granted, declined: declined.filter { $0 != Permission.publicProfile },
            createdAt: now, updatedAt: now, lastLoginAt: now))
        let (text, record) = try await services.tokens.mintUserToken(
            app: appRecord, userID: user.id, lifetime: Lifetimes.longLivedToken, origin: "gatehouse-testing")
        let scopedID = try await storage.users.scopedID(appID: app.id, userID: user.id)
        return TestLogin(accessToken: text, userID: scopedID, expiresAt: record.expiresAt, grantedPermissions: granted, declinedPermissions: declined)
    }

    /// Makes the next `times` Graph calls with any of `user`'s tokens fail with a Graph error, given as
    /// `code` or `code/subcode` (`"190/460"`: session invalidated by a password change) or by name
    /// (`gatehouse inject --list` lists them). nil `times`: until cleared.
    public func injectError(_ error: String, for user: TestUser, times: Int? = 1) async throws {
        _ = try await ErrorInjector(services: services).add(kind: .user, target: user.id, error: error, times: times)
    }

    /// Makes the next `times` Graph calls of the demo app, with any token, fail with `error` (see
    /// ``injectError(_:for:times:)``).
    public func injectErrorForApp(_ error: String, times: Int? = 1) async throws {
        _ = try await ErrorInjector(services: services).add(kind: .app, target: app.id, error: error, times: times)
    }

    /// Moves the emulator's clock forward: tokens, codes and the 90-day data access expire as they would.
    public func advanceClock(by interval: TimeInterval) async throws {
        _ = try await ClockControl(services: services).advance(by: interval)
    }

    /// The emulator's "now".
    public var now: Date { clock.now() }
}

/// The demo app the emulator registers.
public struct TestApp: Sendable, Equatable {
    public let id: String
    public let name: String
    public let secret: String
    /// For `APPID|CLIENT_TOKEN` calls, as the mobile SDKs make them.
    public let clientToken: String
    /// A registered redirect URI for code and token flows.
    public let redirectURI: String
}

/// A test user of the demo app.
public struct TestUser: Sendable, Equatable {
    /// The global user id (what the emulator's own tools take); apps see ``TestLogin/userID`` instead.
    public let id: String
    public let name: String
    public let email: String
    /// Their password on the emulator's login page.
    public let password: String
}

/// What ``GatehouseEmulator/logIn(_:permissions:declined:)`` returns: what an app holds after a login.
public struct TestLogin: Sendable, Equatable {
    public let accessToken: String
    /// The person's app-scoped id: the `id` the app sees in `/me` and in `AccessToken.userID`.
    public let userID: String
    public let expiresAt: Date?
    public let grantedPermissions: [String]
    public let declinedPermissions: [String]
}
