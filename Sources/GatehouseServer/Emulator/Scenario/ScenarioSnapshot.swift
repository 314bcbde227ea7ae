import GatehouseCore
import Foundation
import GatehouseProtocol

/// What the server holds of the things a scenario mentions, read once so ``ScenarioPlan`` can compare without I/O.
package struct ScenarioSnapshot: Sendable {
    /// Apps by id.
    package var apps: [String: AppRecord] = [:]
    /// App id → user id → role.
    package var roles: [String: [String: AppRole]] = [:]
    /// People by id.
    package var users: [String: UserRecord] = [:]
    /// Lower-cased email → the id of the person who has it.
    package var userIDsByEmail: [String: String] = [:]
    /// Person key → whether the file's password is the stored one (bcrypt is checked here, not in the plan); only
    /// for people whose `password` the file states.
    package var passwordMatches: [String: Bool] = [:]
    /// User id → the base32 secret of their confirmed second factor; only for people whose `two_factor_secret`
    /// the file states.
    package var twoFactorSecrets: [String: String] = [:]
    /// User id → app id → app-scoped id.
    package var scopedIDs: [String: [String: String]] = [:]
    /// "appID/scopedID" → the user id that holds it, for the scoped ids the file fixes.
    package var scopedIDOwners: [String: String] = [:]
    /// Sorted pairs of user ids that are friends.
    package var friendships: Set<[String]> = []
    /// "appID/userID" → grant.
    package var grants: [String: GrantRecord] = [:]
    /// Token hash → record.
    package var tokens: [String: TokenRecord] = [:]
    /// Injections by id.
    package var injections: [String: InjectedErrorRecord] = [:]
    /// App id → its Webhooks subscriptions, for the apps whose subscriptions the file states.
    package var subscriptions: [String: [WebhookSubscriptionRecord]] = [:]
    /// Whether the database keeps Webhooks subscriptions at all.
    package var keepsWebhooks = true
    package var clockOffsetSeconds: Int64 = 0
    /// Whether the clock can be moved and errors injected (development mode).
    package var emulatorControls = true
    /// No apps and no people: `serve --scenario` loads only into such a database.
    package var isEmpty = true

    package init() {}

    /// Reads what `scenario` mentions from `services`' storage.
    package static func read(_ scenario: Scenario, services: GatehouseServices) async throws -> ScenarioSnapshot {
        let storage = services.storage
        var snapshot = ScenarioSnapshot()
        let apps = try await storage.apps.list()
        snapshot.isEmpty = apps.isEmpty ? try await storage.users.list().isEmpty : false
        snapshot.emulatorControls = services.configuration.errorInjectionEnabled && services.clockControl != nil
        snapshot.clockOffsetSeconds =
            try await storage.emulator.setting(ClockControl.offsetSetting).flatMap { Int64($0) } ?? 0
        for app in apps { snapshot.apps[app.id] = app }
        let appIDs = Dictionary(scenario.apps.map { ($0.key, $0.id) }, uniquingKeysWith: { a, _ in a })
        for app in scenario.apps where snapshot.apps[app.id] != nil {
            snapshot.roles[app.id] = Dictionary(
                try await storage.apps.roles(appID: app.id).map { ($0.userID, $0.role) },
                uniquingKeysWith: { a, _ in a })
        }
        for person in scenario.people {
            if let other = try await storage.users.find(email: person.email) {
                snapshot.userIDsByEmail[person.email.lowercased()] = other.id
            }
            for (appKey, scoped) in person.scopedIDs {
                guard let appID = appIDs[appKey], snapshot.apps[appID] != nil else { continue }
                if let owner = try await storage.users.userID(appID: appID, scopedID: scoped) {
                    snapshot.scopedIDOwners[appID + "/" + scoped] = owner
                }
            }
            guard let user = try await storage.users.find(id: person.id) else { continue }
            snapshot.users[user.id] = user
            // Production compares no password (that would make `check` an oracle for a token holder): a stated
            // password for an existing person is left as it is there, and changed with PATCH /people/{id}.
            if person.statesPassword, !services.configuration.isProduction {
                snapshot.passwordMatches[person.key] = try await services.passwords.verify(
                    person.password, hash: user.passwordHash)
            }
            if person.twoFactorSecret != nil, let record = try await storage.twoFactor?.find(userID: user.id),
                record.isEnabled
            {
                snapshot.twoFactorSecrets[user.id] = record.secret
            }
            snapshot.scopedIDs[user.id] = Dictionary(
                try await storage.users.scopedIDs(userID: user.id).map { ($0.appID, $0.scopedID) },
                uniquingKeysWith: { a, _ in a })
        }
        let userIDs = Dictionary(scenario.people.map { ($0.key, $0.id) }, uniquingKeysWith: { a, _ in a })
        for pair in scenario.friendships {
            guard let a = userIDs[pair.a], let b = userIDs[pair.b], snapshot.users[a] != nil, snapshot.users[b] != nil
            else { continue }
            if try await storage.friendships.areFriends(a, b) { snapshot.friendships.insert([a, b].sorted()) }
        }
        for grant in scenario.grants {
            guard let appID = appIDs[grant.app], let userID = userIDs[grant.person] else { continue }
            if let record = try await storage.grants.find(appID: appID, userID: userID) {
                snapshot.grants[appID + "/" + userID] = record
            }
        }
        for token in scenario.tokens {
            let hash = SecretHash.sha256Hex(token.value)
            if let record = try await storage.tokens.find(tokenHash: hash) { snapshot.tokens[hash] = record }
        }
        for injection in try await storage.emulator.injections() { snapshot.injections[injection.id] = injection }
        snapshot.keepsWebhooks = storage.webhooks != nil
        for app in scenario.apps where !app.subscriptions.isEmpty && snapshot.apps[app.id] != nil {
            snapshot.subscriptions[app.id] = try await storage.webhooks?.subscriptions(appID: app.id)
        }
        return snapshot
    }
}
