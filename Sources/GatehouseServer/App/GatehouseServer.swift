import Foundation
import Hummingbird
import Logging
import NIOCore

/// Opens storage, seeds development data, and runs the HTTP server until shutdown.
public enum GatehouseServerRunner {
    /// Services over the SQLite database in the configured data directory.
    public static func services(configuration: GatehouseConfiguration, logger: Logger, clock: any GatehouseClock = SystemClock()) async throws -> GatehouseServices {
        let storage = try await SQLStorage.openSQLite(path: configuration.databasePath, logger: logger)
        return GatehouseServices(configuration: configuration, storage: storage, clock: clock, logger: logger)
    }

    /// Runs the server. `announce` is called once it listens, with the dev seed when in development mode.
    public static func run(
        configuration: GatehouseConfiguration, logger: Logger,
        announce: @escaping @Sendable (_ boundPort: Int, _ seed: DevSeed?) -> Void
    ) async throws {
        let services = try await services(configuration: configuration, logger: logger)
        var seed: DevSeed?
        if configuration.mode == .development {
            seed = try await DevSeeder(services: services).seedIfNeeded()
        }
        let chosenSeed = seed
        let app = try await GatehouseApp.application(services: services) { channel in
            announce(channel.localAddress?.port ?? configuration.port, chosenSeed)
        }
        do {
            try await app.runService()
        } catch {
            try? await services.storage.shutdown()
            throw error
        }
        try? await services.storage.shutdown()
    }
}
