import GatehouseCore
import GatehouseStorage
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Runs `gatehouse serve` through the one start-up sequence (``ServerStartup``) until shutdown, and builds the
/// services CLI commands use on the database directly.
package enum GatehouseServerRunner {
    /// Services over the configured database (by default the SQLite file in the data directory), for CLI
    /// commands that work on the database directly.
    /// - Parameter pool: PostgreSQL's connection pool when the caller's service group runs it (the server); nil
    ///   lets the storage run its own until it shuts down (CLI commands).
    package static func services(
        configuration: GatehouseConfiguration, logger: Logger, clock: any GatehouseClock = SystemClock(),
        pool: DatabaseConnectionPool? = nil
    ) async throws -> GatehouseServices {
        var options = ServerStartup.Options(configuration: configuration, logger: logger)
        // Development mode gets a clock the console and `gatehouse clock` can move; it keeps its offset across restarts.
        options.clockControl = configuration.mode == .development ? AdjustableClock(base: clock) : nil
        return try await services(options, pool: pool, productionClock: clock)
    }

    /// Opens storage and builds the services as every start-up does: the master key first, then the
    /// database, then the console's clock offset saved by an earlier run.
    package static func services(
        _ options: ServerStartup.Options, pool: DatabaseConnectionPool?,
        productionClock: any GatehouseClock = SystemClock()
    ) async throws -> GatehouseServices {
        let configuration = options.configuration, logger = options.logger
        // Load the master key before touching the database, so a bad key file fails fast with its name.
        let sealer = try configuration.masterKeyFile.map(SecretSealer.load(path:))
        if sealer == nil, configuration.isProduction {
            logger.warning(
                "no master key (--master-key-file): signing private keys and the token cache's master key are stored unencrypted in the database"
            )
        }
        let control =
            options.clockControl ?? (configuration.mode == .development ? AdjustableClock(base: productionClock) : nil)
        let clock: any GatehouseClock = control ?? productionClock
        let storage = try await configuration.databaseLocation.open(
            logger: logger, random: options.random, clock: clock, pool: pool, tracesStatements: options.tracing != nil,
            durability: configuration.commitDurability
        )
        .sealingSecrets(with: sealer)
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: clock, random: options.random,
            passwords: options.passwords ?? BcryptPasswordHasher(configuration), logger: logger, clockControl: control,
            tracer: options.tracing?.tracer)
        do {
            try await ClockControl(services: services).restore()
        } catch {
            try? await storage.shutdown()
            throw error
        }
        return services
    }

    /// Runs the server. `announce` is called once it listens, with the dev seed when in development mode.
    /// - Parameter scenario: loaded into the empty database instead of the dev seed (``ScenarioLoader/loadAtStartup(_:file:)``).
    package static func run(
        configuration: GatehouseConfiguration, logger: Logger, scenario: ScenarioFile? = nil,
        announce: @escaping @Sendable (_ boundPort: Int, _ seed: DevSeed?) -> Void
    ) async throws {
        try await run(
            configuration: configuration, logger: logger, stopsOnSignals: true, scenario: scenario, announce: announce)
    }

    /// Runs the server (``ServerStartup``): binds the port first, then opens storage, seeds, and starts answering.
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
        var options = ServerStartup.Options(configuration: configuration, logger: logger)
        options.stopsOnSignals = stopsOnSignals
        options.scenario = scenario
        // swift-otel's tracer is process-wide (`InstrumentationSystem`): set up here, on `serve`'s path, only.
        options.tracing = try ServerTracing.bootstrapOTLP(
            configuration.tracing, environment: ProcessInfo.processInfo.environment, logger: logger)
        let prepared = try await ServerStartup.prepare(options)
        // SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (at most `drainTimeout`),
        // then close the database.
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                do {
                    try await prepared.group.run()
                    prepared.groupEnded(nil)
                } catch {
                    prepared.groupEnded(error)
                    throw error
                }
            }
            let started: ServerStartup.Started
            do {
                let port = try await prepared.boundPort()
                try await whileStarting?(port)
                started = try await ServerStartup.bringUp(prepared, port: port)
            } catch {
                await prepared.group.triggerGracefulShutdown()
                throw error
            }
            announce(started.services.configuration.port, started.seed)
            // Every service has stopped when the group returns, whichever way it ends; then the database closes.
            let stopped: (any Error)?
            do {
                try await tasks.waitForAll()
                stopped = nil
            } catch {
                stopped = error
            }
            try? await started.services.storage.shutdown()
            if let stopped { throw stopped }
            logger.info("Gatehouse stopped")
        }
    }

    /// Development mode on a non-loopback host: refused, or with `--dev-allow-remote` a critical warning.
    /// - Throws: ``ConfigurationError`` pointing to production mode and `--dev-allow-remote`.
    package static func checkExposure(_ configuration: GatehouseConfiguration, logger: Logger) throws {
        if let refusal = DevelopmentExposure.refusal(configuration) { throw ConfigurationError(refusal) }
        if let warning = DevelopmentExposure.warning(configuration) { logger.critical("\(warning)") }
    }

    /// How long a graceful shutdown waits for in-flight requests before cancelling them.
    package static let drainTimeout: Duration = .seconds(30)

    /// Production mode: refuses unsafe settings (``ProductionSafety``), and warns when no admin can log in.
    /// - Throws: ``UnsafeConfigurationError`` listing every problem.
    package static func checkProductionSafety(_ services: GatehouseServices) async throws {
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
            services.logger.warning(
                "no admin account: the console is unreachable until one is created with `gatehouse admin create`")
        }
    }
}
