import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Opens storage, seeds development data, and runs the HTTP server until shutdown.
public enum GatehouseServerRunner {
    /// Services over the configured database (by default the SQLite file in the data directory).
    public static func services(configuration: GatehouseConfiguration, logger: Logger, clock: any GatehouseClock = SystemClock()) async throws -> GatehouseServices {
        // Load the master key before touching the database, so a bad key file fails fast with its name.
        let sealer = try configuration.masterKeyFile.map(SecretSealer.load(path:))
        if sealer == nil, configuration.isProduction {
            logger.warning("no master key (--master-key-file): signing private keys and the token cache's master key are stored unencrypted in the database")
        }
        let storage = try await configuration.databaseLocation.open(logger: logger).sealingSecrets(with: sealer)
        // Development mode gets a clock the console and `gatehouse clock` can move; it keeps its offset across restarts.
        let control = configuration.mode == .development ? AdjustableClock(base: clock) : nil
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: control ?? clock, logger: logger, clockControl: control)
        try await ClockControl(services: services).restore()
        return services
    }

    /// Runs the server. `announce` is called once it listens, with the dev seed when in development mode.
    public static func run(
        configuration: GatehouseConfiguration, logger: Logger,
        announce: @escaping @Sendable (_ boundPort: Int, _ seed: DevSeed?) -> Void
    ) async throws {
        var configuration = configuration
        try checkExposure(configuration, logger: logger)
        if configuration.port == 0 {
            // Resolve "any free port" before anything builds URLs (seed, redirects, paging links).
            configuration.port = try await FreePort.find(host: configuration.host)
        }
        let services = try await services(configuration: configuration, logger: logger)
        let app: any ApplicationProtocol
        let chosenSeed: DevSeed?
        do {
            try await checkProductionSafety(services)
            var seed: DevSeed?
            if configuration.isDevelopment {
                seed = try await DevSeeder(services: services).seedIfNeeded()
            }
            chosenSeed = seed
            let port = configuration.port
            app = try await GatehouseApp.application(services: services) { channel in
                announce(channel.localAddress?.port ?? port, chosenSeed)
            }
        } catch {
            try? await services.storage.shutdown()
            throw error
        }
        // SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (at most
        // `drainTimeout`), then close the database.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = drainTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        // Delivers due app callbacks (deauthorize, data deletion), including retries left by an earlier run.
        let outboxWorker = Task { await services.outbox.run(every: .seconds(5)) }
        do {
            try await group.run()
        } catch {
            outboxWorker.cancel()
            _ = await outboxWorker.value
            try? await services.storage.shutdown()
            throw error
        }
        logger.info("Gatehouse stopped")
        outboxWorker.cancel()
        _ = await outboxWorker.value
        try? await services.storage.shutdown()
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

/// Finds a free TCP port by binding port 0 and closing the socket again.
enum FreePort {
    static func find(host: String) async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
