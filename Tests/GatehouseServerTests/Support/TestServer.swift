import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import GatehouseTestSupport

/// Records app callbacks instead of making HTTP calls.
final class RecordingNotifier: AppCallbackNotifier, @unchecked Sendable {
    private let lock = NSLock()
    private var _removed: [(appID: String, scopedUserID: String)] = []
    var removed: [(appID: String, scopedUserID: String)] { lock.withLock { _removed } }
    func appRemoved(app: AppRecord, scopedUserID: String, at: Date) async {
        lock.withLock { _removed.append((app.id, scopedUserID)) }
    }
}

/// A server over a fresh SQLite file, a fixed clock, and a demo app with two befriended users.
struct TestServer {
    static let redirectURI = "https://app.example.com/callback"
    let services: GatehouseServices
    let clock: AdjustableClock
    let notifier: RecordingNotifier
    let app: AppRecord
    let alice: UserRecord
    let bob: UserRecord
    /// The data directory, removed by ``run(_:_:)`` or ``close()``.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    /// - Parameters:
    ///   - configure: changes to the configuration (mode, limits, proxies, TLS) before services are built.
    ///   - logger: replaces the silent default (the secrets-in-logs test captures everything).
    ///   - passwords: replaces bcrypt at cost 4 (the throttling tests count verifications).
    ///   - callbackTransport: replaces the mode's guarded callback transport.
    static func make(
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

    /// Runs `body` against the application in-process (`.router`) or over a real socket (`.live`), then
    /// closes the database and removes the data directory, whether `body` passed or failed.
    func run(
        _ mode: TestServerMode = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let pages = try await PageRenderer.load(devMode: services.configuration.isDevelopment)
        let router = GatehouseApp.router(services: services, pages: pages)
        let serverBuilder = try GatehouseApp.serverBuilder(services.configuration)
        let logger = services.logger
        do {
            switch mode {
            case .router:
                let application = Application(
                    router: router, server: serverBuilder,
                    configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
                try await application.test(.router, body)
            case .live:
                try await PatientLiveClient.run(
                    { onRunning in
                        Application(
                            router: router, server: serverBuilder,
                            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                            onServerRunning: onRunning, logger: logger)
                    }, body)
            }
        } catch {
            // Close the database even when the test fails, so the failure is reported rather than
            // sqlite-nio's debug assertion about an unclosed connection ending the whole run.
            try? await services.storage.shutdown()
            scratch.remove()
            throw error
        }
        try await close()
    }

    /// Closes the database and removes the data directory: for a test that never runs the application.
    func close() async throws {
        defer { scratch.remove() }
        try await services.storage.shutdown()
    }

    /// A user token minted directly, after saving a grant (skips the dialog for Graph tests).
    func token(
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

    func scopedID(_ user: UserRecord) async throws -> String {
        try await services.storage.users.scopedID(appID: app.id, userID: user.id)
    }

    var appToken: String { "\(app.id)|\(app.secret)" }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: JSONValue { (try? JSONValue.parse(Data(text.utf8))) ?? .null }
    var location: String? { headers[.location] }
}
