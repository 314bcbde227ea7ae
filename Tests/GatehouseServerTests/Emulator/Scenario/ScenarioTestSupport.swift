import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Hummingbird
import HummingbirdTesting
import Logging
import GatehouseTestSupport

/// A server over an empty SQLite file (no demo app, unlike ``TestServer``), for loading scenarios into.
struct ScenarioServer {
    let services: GatehouseServices
    let clock: AdjustableClock
    /// The data directory, removed by ``run(_:)`` or ``close()``.
    let scratch: ScratchDirectory

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func make(mode: ServerMode = .development) async throws -> ScenarioServer {
        let scratch = try ScratchDirectory.create("scenario")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: scratch.path, publicURL: "http://gatehouse.test", mode: mode)
        let storage = try await SQLStorage.openSQLite(path: configuration.databasePath, logger: logger)
        let clock = AdjustableClock(fixed: start)
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: clock, passwords: BcryptPasswordHasher(cost: 4),
            callbacks: RecordingNotifier(), logger: logger, clockControl: mode == .development ? clock : nil)
        return ScenarioServer(services: services, clock: clock, scratch: scratch)
    }

    var loader: ScenarioLoader { ScenarioLoader(services: services) }

    /// Parses and applies a file from `docs/scenarios`.
    @discardableResult
    func apply(example name: String) async throws -> ScenarioLoader.Outcome {
        let path = ScenarioFixtures.example(name)
        let scenario = try ScenarioParser.reading(path: path).parse(try String(contentsOfFile: path, encoding: .utf8))
        return try await loader.apply(scenario, file: name)
    }

    /// Runs `body` against the application in-process, then closes the database and removes the data directory,
    /// whether `body` passed or failed.
    func run(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let pages = try await PageRenderer.load(devMode: services.configuration.isDevelopment)
        let application = Application(
            router: GatehouseApp.router(services: services, pages: pages),
            server: try GatehouseApp.serverBuilder(services.configuration),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: services.logger)
        do {
            try await application.test(.router, body)
        } catch {
            try? await services.storage.shutdown()
            scratch.remove()
            throw error
        }
        try await close()
    }

    /// Closes the database and removes the data directory, for a test that never ran the application.
    func close() async throws {
        defer { scratch.remove() }
        try await services.storage.shutdown()
    }
}

enum ScenarioFixtures {
    /// `docs/scenarios/<name>` in this checkout.
    static func example(_ name: String, near file: String = #filePath) -> String {
        var root = URL(fileURLWithPath: file).deletingLastPathComponent()
        // Up from Tests/GatehouseServerTests/Emulator/Scenario to the checkout, whatever the folder's depth.
        while root.path != "/",
            !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path)
        {
            root.deleteLastPathComponent()
        }
        return root.appendingPathComponent("docs/scenarios/" + name).path
    }

    /// Parses YAML given inline; pictures come from `files`.
    static func parse(_ yaml: String, files: [String: Data] = [:]) throws -> Scenario {
        try ScenarioParser(file: "test.yaml", readFile: { files[$0] }).parse(yaml)
    }

    /// The error lines a bad file produces (empty when it parses).
    static func errors(_ yaml: String, files: [String: Data] = [:]) -> [String] {
        do {
            _ = try parse(yaml, files: files)
            return []
        } catch let errors as ScenarioErrors {
            return errors.errors.map(\.description)
        } catch {
            return ["unexpected \(error)"]
        }
    }
}
