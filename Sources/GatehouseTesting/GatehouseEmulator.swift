import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import GatehouseStorage
import Hummingbird
import Logging
import ServiceLifecycle
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Gatehouse server for your tests: started inside the test process (``start(_:)``: a free port on 127.0.0.1,
/// a fresh SQLite database, a demo app and three befriended test users) or reached by URL
/// (``connect(to:adminToken:)``), with helpers to set up apps, people, friendships, grants and tokens, log a
/// person in without a browser, inject a Graph error, move the clock and reset the state.
///
/// ```swift
/// let gatehouse = try await GatehouseEmulator.start()
/// let login = try await gatehouse.logIn(gatehouse.users[0], permissions: ["email"])
/// // point the app under test at gatehouse.baseURL, call it with login.accessToken …
/// try await gatehouse.stop()
/// ```
///
/// Every helper is a call to the server's admin REST API (`/admin/api/v1`), so a helper behaves the same on an
/// emulator in this process and on one in a container or on another host. Every emulator is independent:
/// tests can run several side by side.
public final class GatehouseEmulator: Sendable {
    /// The server's root, e.g. `http://127.0.0.1:49152`; it answers Graph calls (`/v21.0/me`), the login
    /// dialog (`/v21.0/dialog/oauth`) and the token endpoint, as `graph.facebook.com` and `www.facebook.com` do.
    public let baseURL: URL
    /// The demo app (the development seed's "Gatehouse Demo"), registered with the redirect URI `redirectURI`
    /// and the `fb{id}://authorize/` scheme. After ``reset(to:)`` with `.seed`, the new seed's app. On a server
    /// reached by URL that has no development seed, an app with an empty id until such a reset.
    public var app: TestApp { seed.value.app }
    /// Alice, Bob and Carol: test users of the demo app, all friends of each other (the development seed's
    /// people). After ``reset(to:)`` with `.seed`, the new seed's people.
    public var users: [TestUser] { seed.value.users }

    /// The admin API client every helper uses.
    let admin: AdminConnection
    /// The demo app and people, replaced when the state is reset to the seed.
    let seed: LockedValue<(app: TestApp, users: [TestUser])>
    /// The server this process runs; nil for a server reached by URL.
    let local: LocalServer?
    /// A server reached by URL: its "now" at the last clock call.
    let lastKnownNow: LockedValue<Date>

    /// Starts an emulator and returns once it answers requests.
    ///
    /// - Parameter options: a fixed start time, a seed for repeatable ids and tokens, logging.
    /// - Throws: when the port cannot be bound or the database cannot be created.
    public static func start(_ options: Options = Options()) async throws -> GatehouseEmulator {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-emulator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "gatehouse.emulator")
        logger.logLevel = options.logLevel
        // The server's own start-up, with a fixed clock and optionally seeded ids; development mode's password
        // cost (bcrypt's minimum) keeps its people, seed and resets quick.
        var configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, mode: .development)
        // The database is deleted at stop: its commits need not wait for the disk (a reset took a third less).
        configuration.commitDurability = .processCrash
        var startup = ServerStartup.Options(configuration: configuration, logger: logger)
        startup.stopsOnSignals = false
        let clock = AdjustableClock(fixed: options.startDate)
        startup.clockControl = clock
        startup.random = options.seed.map { SeededRandomSource(seed: $0) } ?? SystemRandomSource()
        let prepared: ServerStartup.Prepared
        do {
            prepared = try await ServerStartup.prepare(startup)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let running = Task {
            do {
                try await prepared.group.run()
                prepared.groupEnded(nil)
            } catch {
                prepared.groupEnded(error)
                throw error
            }
        }
        do {
            let started = try await ServerStartup.bringUp(prepared, port: try await prepared.boundPort())
            guard let seed = started.seed else {
                try? await started.services.storage.shutdown()
                throw EmulatorError.notSeeded
            }
            let baseURL = URL(string: started.services.configuration.baseURL)!
            return GatehouseEmulator(
                baseURL: baseURL, admin: AdminConnection(baseURL: baseURL, adminToken: nil), seed: Self.testSeed(seed),
                local: LocalServer(
                    services: started.services, clock: clock, group: prepared.group, running: running,
                    directory: directory))
        } catch {
            await prepared.group.triggerGracefulShutdown()
            _ = try? await running.value
            try? FileManager.default.removeItem(at: directory)
            throw error is ServerStoppedBeforeBindingError ? EmulatorError.stoppedBeforeListening : error
        }
    }

    init(
        baseURL: URL, admin: AdminConnection, seed: (app: TestApp, users: [TestUser]), local: LocalServer?,
        now: Date = Date()
    ) {
        self.baseURL = baseURL
        lastKnownNow = LockedValue(now)
        self.admin = admin
        self.seed = LockedValue(seed)
        self.local = local
    }

    /// The development seed as a test sees it.
    static func testSeed(_ seed: DevSeed) -> (app: TestApp, users: [TestUser]) {
        let app = TestApp(
            id: seed.app.id, name: seed.app.name, secret: seed.app.secret, clientToken: seed.app.clientToken,
            redirectURIs: seed.app.redirectURIs)
        return (app, seed.users.map { TestUser(id: $0.id, name: $0.name, email: $0.email, password: $0.password) })
    }

    /// Stops the server (requests in flight finish), closes the database and deletes its files. On an emulator
    /// reached by URL it does nothing: that server is not this test's to stop.
    public func stop() async throws {
        guard let local else { return }
        await local.group.triggerGracefulShutdown()
        try await local.running.value
        try await local.services.storage.shutdown()
        try? FileManager.default.removeItem(at: local.directory)
    }
}

/// The parts of an emulator that exist only when it runs in this process.
struct LocalServer: Sendable {
    let services: GatehouseServices
    let clock: AdjustableClock
    let group: ServiceGroup
    let running: Task<Void, any Error>
    let directory: URL
}

/// A value behind a lock, for the few things an emulator changes after it starts.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension GatehouseEmulator {
    /// How an emulator starts.
    public struct Options: Sendable {
        /// The emulator's "now" when it starts; time then stands still until ``GatehouseEmulator/advanceClock(by:)``.
        public var startDate: Date
        /// A seed for every id, secret and token the emulator makes: the same seed gives the same values in the
        /// same order. nil: the system's random numbers.
        public var seed: UInt64?
        /// The server's log level (its log goes to standard error); `.critical` keeps a test's output quiet.
        public var logLevel: Logger.Level

        public init(
            startDate: Date = Date(timeIntervalSince1970: 1_800_000_000), seed: UInt64? = nil,
            logLevel: Logger.Level = .critical
        ) {
            self.startDate = startDate
            self.seed = seed
            self.logLevel = logLevel
        }
    }

    /// Why an emulator did not start.
    public enum EmulatorError: Error, Sendable {
        /// The server stopped before it listened.
        case stoppedBeforeListening
        /// The fresh database was not seeded.
        case notSeeded
        /// The person is not one of ``GatehouseEmulator/users``.
        case unknownUser(String)
        /// The server's answer lacked a field a helper needs (a server older than this library).
        case unexpectedAnswer(String)
    }
}
