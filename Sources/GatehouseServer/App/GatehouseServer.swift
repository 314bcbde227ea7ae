import GatehouseCore
import GatehouseStorage
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Opens storage, seeds development data, and runs the HTTP server until shutdown.
public enum GatehouseServerRunner {
    /// Services over the configured database (by default the SQLite file in the data directory).
    /// - Parameter pool: PostgreSQL's connection pool when the caller's service group runs it (the server); nil
    ///   lets the storage run its own until it shuts down (CLI commands).
    public static func services(
        configuration: GatehouseConfiguration, logger: Logger, clock: any GatehouseClock = SystemClock(),
        pool: DatabaseConnectionPool? = nil
    ) async throws -> GatehouseServices {
        // Load the master key before touching the database, so a bad key file fails fast with its name.
        let sealer = try configuration.masterKeyFile.map(SecretSealer.load(path:))
        if sealer == nil, configuration.isProduction {
            logger.warning("no master key (--master-key-file): signing private keys and the token cache's master key are stored unencrypted in the database")
        }
        // Development mode gets a clock the console and `gatehouse clock` can move; it keeps its offset across restarts.
        let control = configuration.mode == .development ? AdjustableClock(base: clock) : nil
        let random = SystemRandomSource()
        let storage = try await configuration.databaseLocation.open(logger: logger, random: random, clock: control ?? clock, pool: pool)
            .sealingSecrets(with: sealer)
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: control ?? clock, random: random, logger: logger, clockControl: control)
        try await ClockControl(services: services).restore()
        return services
    }

    /// Runs the server. `announce` is called once it listens, with the dev seed when in development mode.
    /// - Parameter scenario: loaded into the empty database instead of the dev seed (``ScenarioLoader/loadAtStartup(_:file:)``).
    public static func run(
        configuration: GatehouseConfiguration, logger: Logger, scenario: ScenarioFile? = nil,
        announce: @escaping @Sendable (_ boundPort: Int, _ seed: DevSeed?) -> Void
    ) async throws {
        try await run(configuration: configuration, logger: logger, stopsOnSignals: true, scenario: scenario, announce: announce)
    }

    /// Runs the server: binds the port first, then opens storage, seeds, and starts answering.
    ///
    /// Binding comes first so that the port in every URL Gatehouse builds (the seed, redirects, paging links) is
    /// one this process already holds. Requests that arrive while it starts get 503 with `Retry-After`.
    /// - Parameters:
    ///   - stopsOnSignals: SIGTERM and SIGINT stop it gracefully (tests pass false and stop it through an
    ///     enclosing service group).
    ///   - whileStarting: called with the bound port before storage opens (tests use it to show the port is held).
    static func run(
        configuration: GatehouseConfiguration, logger: Logger, stopsOnSignals: Bool,
        whileStarting: (@Sendable (_ boundPort: Int) async throws -> Void)? = nil, scenario: ScenarioFile? = nil,
        announce: @escaping @Sendable (_ boundPort: Int, _ seed: DevSeed?) -> Void
    ) async throws {
        try checkExposure(configuration, logger: logger)
        let gate = StartupGate()
        let bound = BoundPort()
        let pages = try await PageRenderer.load(devMode: configuration.mode == .development)
        let app = Application(
            responder: gate, server: try GatehouseApp.serverBuilder(configuration),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Gatehouse"),
            onServerRunning: { channel in bound.fulfil(.success(channel.localAddress?.port ?? configuration.port)) },
            logger: logger)
        // PostgreSQL's pool is listed before the HTTP server: the group stops services in reverse order, so the
        // pool closes only after the last request has drained.
        let pool = try configuration.databaseLocation.makeConnectionPool(logger: logger)
        // SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (at most
        // `drainTimeout`), then close the database.
        var groupConfiguration = ServiceGroupConfiguration(
            services: (pool.map { [.init(service: $0)] } ?? []) + [.init(service: app)], gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = drainTimeout
        let group = ServiceGroup(configuration: groupConfiguration)

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                do {
                    try await group.run()
                    bound.fulfil(.failure(ServerStoppedBeforeBindingError()))
                } catch {
                    bound.fulfil(.failure(error))
                    throw error
                }
            }
            let services: GatehouseServices
            let seed: DevSeed?
            do {
                var configuration = configuration
                configuration.port = try await bound.value()
                try await whileStarting?(configuration.port)
                services = try await Self.services(configuration: configuration, logger: logger, pool: pool)
                do {
                    try await checkProductionSafety(services)
                    if let scenario {
                        try await ScenarioLoader(services: services).loadAtStartup(scenario.scenario, file: scenario.file)
                        seed = nil
                    } else {
                        seed = configuration.isDevelopment ? try await DevSeeder(services: services).seedIfNeeded() : nil
                    }
                } catch {
                    try? await services.storage.shutdown()
                    throw error
                }
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            // The caches come on once the feed watches for other processes' and nodes' writes; until then (and
            // after it stops) requests read the database.
            if let feed = services.storage.invalidationFeed {
                await group.addServiceUnlessShutdown(CacheInvalidationService(feed: feed))
            }
            gate.open(with: GatehouseApp.router(services: services, pages: pages).buildResponder())
            // Delivers due app callbacks (deauthorize, data deletion), including retries left by an earlier run;
            // it stops with the group, before the database closes.
            await group.addServiceUnlessShutdown(services.outboxWorker)
            if let writer = services.journalTableWriter { await group.addServiceUnlessShutdown(writer) }
            // The seed file tells clients where the server is, so it is written only once requests are served.
            if let seed { try? DevSeeder(services: services).write(seed) }
            announce(services.configuration.port, seed)
            // Every service has stopped when the group returns, whichever way it ends; then the database closes.
            let stopped: (any Error)?
            do {
                try await tasks.waitForAll()
                stopped = nil
            } catch {
                stopped = error
            }
            try? await services.storage.shutdown()
            if let stopped { throw stopped }
            logger.info("Gatehouse stopped")
        }
    }

    /// Development mode on a non-loopback host: refused, or with `--dev-allow-remote` a critical warning.
    /// - Throws: ``ConfigurationError`` pointing to production mode and `--dev-allow-remote`.
    public static func checkExposure(_ configuration: GatehouseConfiguration, logger: Logger) throws {
        if let refusal = DevelopmentExposure.refusal(configuration) { throw ConfigurationError(refusal) }
        if let warning = DevelopmentExposure.warning(configuration) { logger.critical("\(warning)") }
    }

    /// How long a graceful shutdown waits for in-flight requests before cancelling them.
    public static let drainTimeout: Duration = .seconds(30)

    /// Production mode: refuses unsafe settings (``ProductionSafety``), and warns when no admin can log in.
    /// - Throws: ``UnsafeConfigurationError`` listing every problem.
    public static func checkProductionSafety(_ services: GatehouseServices) async throws {
        let configuration = services.configuration
        guard configuration.isProduction else { return }
        var facts = ProductionSafety.Facts()
        if let data = FileManager.default.contents(atPath: configuration.devSeedPath) {
            facts.devSeedPresent = true
            if let seed = try? JSONDecoder().decode(DevSeed.self, from: data) {
                facts.devSeedAppPresent = try await services.storage.apps.find(id: seed.app.id) != nil
            }
        }
        let problems = ProductionSafety.problems(configuration, facts: facts)
        guard problems.isEmpty else { throw UnsafeConfigurationError(problems: problems) }
        if try await services.storage.admins.list().isEmpty {
            services.logger.warning("no admin account: the console is unreachable until one is created with `gatehouse admin create`")
        }
    }
}
