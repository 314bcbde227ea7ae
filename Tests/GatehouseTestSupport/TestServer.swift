import Foundation
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Logging

/// Records app callbacks instead of making HTTP calls.
package final class RecordingNotifier: AppCallbackNotifier, @unchecked Sendable {
    private let lock = NSLock()
    private var _removed: [(appID: String, scopedUserID: String)] = []
    package var removed: [(appID: String, scopedUserID: String)] { lock.withLock { _removed } }
    package init() {}
    package func appRemoved(app: AppRecord, scopedUserID: String, at: Date) async {
        lock.withLock { _removed.append((app.id, scopedUserID)) }
    }
}

/// A server over a fresh SQLite file, a fixed clock, and a demo app with two befriended users: the services
/// in-process, with no child process. `GatehouseServerTests` adds `run(_:_:)`, which serves it through
/// HummingbirdTesting; a suite that needs only the services (the integration target's mail delivery) uses it as is.
package struct TestServer {
    package static let redirectURI = "https://app.example.com/callback"
    package let services: GatehouseServices
    package let clock: AdjustableClock
    package let notifier: RecordingNotifier
    package let app: AppRecord
    package let alice: UserRecord
    package let bob: UserRecord
    /// The data directory, removed by `run(_:_:)` or ``close()``.
    package let scratch: ScratchDirectory
    package var directory: URL { scratch.url }

    /// The server's parts as they are (a test that swaps one of `services`' stores builds a second one).
    package init(
        services: GatehouseServices, clock: AdjustableClock, notifier: RecordingNotifier, app: AppRecord,
        alice: UserRecord, bob: UserRecord, scratch: ScratchDirectory
    ) {
        self.services = services
        self.clock = clock
        self.notifier = notifier
        self.app = app
        self.alice = alice
        self.bob = bob
        self.scratch = scratch
    }

    /// - Parameters:
    ///   - configure: changes to the configuration (mode, limits, proxies, TLS) before services are built.
    ///   - logger: replaces the silent default (the secrets-in-logs test captures everything).
    ///   - passwords: replaces bcrypt at cost 4 (the throttling tests count verifications).
    ///   - callbackTransport: replaces the mode's guarded callback transport.
    package static func make(
        requireAppSecret: Bool = false, approved: [String] = ["user_friends"], mode: ServerMode = .development,
        configure: (inout GatehouseConfiguration) -> Void = { _ in }, logger customLogger: Logger? = nil,
        passwords: (any PasswordHasher)? = nil, callbackTransport: (any CallbackTransport)? = nil,
        webhookTransport: (any WebhookTransport)? = nil
    ) async throws -> TestServer {
        let scratch = try ScratchDirectory.create("test")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        if let customLogger { logger = customLogger }
        var configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: scratch.path, publicURL: "http://gatehouse.test", mode: mode)
        configure(&configuration)
        // A failure from here on leaves the folder to the exit sweep (see `ScratchDirectory`).
        try await MigratedTemplate.copy(to: configuration.databasePath)
        let storage = try await SQLStorage.openSQLite(path: configuration.databasePath, logger: logger).runningFeed()
        let clock = AdjustableClock(fixed: Date(timeIntervalSince1970: 1_800_000_000))
        let notifier = RecordingNotifier()
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: clock,
            passwords: passwords ?? BcryptPasswordHasher(cost: 4),
            callbacks: notifier, logger: logger, clockControl: clock, callbackTransport: callbackTransport,
            webhookTransport: webhookTransport)
        let app = try await services.accounts.createApp(
            name: "Test App", redirectURIs: [redirectURI, "http://127.0.0.1/cb"], requireAppSecret: requireAppSecret,
            approvedPermissions: approved)
        let alice = try await services.accounts.createUser(
            NewUser(
                email: "alice@example.com", password: "alice-password", firstName: "Alice", lastName: "Anders",
                birthday: "04/12/1990", gender: "female", location: Place(id: "110", name: "Lisbon, Portugal")))
        let bob = try await services.accounts.createUser(
            NewUser(
                email: "bob@example.com", password: "bob-password", firstName: "Bob", lastName: "Brown"))
        try await storage.friendships.befriend(alice.id, bob.id, at: clock.now())
        return TestServer(
            services: services, clock: clock, notifier: notifier, app: app, alice: alice, bob: bob, scratch: scratch)
    }

    /// Closes the database and removes the data directory: for a test that never runs the application.
    package func close() async throws {
        defer { scratch.remove() }
        try await services.storage.shutdown()
    }

    /// A user token minted directly, after saving a grant (skips the dialog for Graph tests).
    package func token(
        for user: UserRecord, granted: [String] = ["public_profile"], declined: [String] = [],
        lifetime: TimeInterval = Lifetimes.longLivedToken
    ) async throws -> String {
        let now = clock.now()
        try await services.storage.grants.save(
            GrantRecord(
                appID: app.id, userID: user.id, granted: granted, declined: declined, createdAt: now, updatedAt: now,
                lastLoginAt: now))
        return try await services.tokens.mintUserToken(app: app, userID: user.id, lifetime: lifetime, origin: "test").0
    }

    package func scopedID(_ user: UserRecord) async throws -> String {
        try await services.storage.users.scopedID(appID: app.id, userID: user.id)
    }

    package var appToken: String { "\(app.id)|\(app.secret)" }
}
