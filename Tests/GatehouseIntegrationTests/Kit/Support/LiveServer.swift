import ChildProcesses
import Foundation
import GatehouseKit
import GatehouseTestSupport

/// A real `gatehouse serve` (``ServedGatehouse``) on a scratch data directory, with its dev seed in the shapes the
/// SDK's tests use.
final class LiveServer: Sendable {
    typealias SeedUser = ServedGatehouse.Seed.User

    let served: ServedGatehouse
    var directory: String { served.dataDirectory }
    let baseURL: URL
    let appID: String
    let appSecret: String
    let clientToken: String
    let users: [SeedUser]

    static var binary: String { ServedGatehouse.binary }

    /// Starts the server and waits until it is ready. Throws if it does not start or writes no dev seed.
    /// - Parameter environment: extra environment variables for the server (e.g. a short device poll interval).
    init(environment: [String: String] = [:]) async throws {
        // `GATEHOUSE_LIVE_LOGS=DIR` keeps each server's debug log in DIR, to see what a server saw when a
        // live test failed; without it the servers log errors only, into their output.
        let logDirectory = ProcessInfo.processInfo.environment["GATEHOUSE_LIVE_LOGS"]
        var standardError = ChildProcess.StandardError.merged
        if let logDirectory {
            try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
            standardError = .file(logDirectory + "/kit-\(UUID().uuidString).log")
        }
        served = try await ServedGatehouse.start(
            ["--log-level", logDirectory == nil ? "error" : "debug"], environment: environment,
            standardError: standardError)
        guard let seed = served.seed else {
            served.stop()
            throw LiveServerError.noSeed(served.output)
        }
        baseURL = URL(string: served.baseURL)!
        appID = seed.app.id
        appSecret = seed.app.secret
        clientToken = seed.app.clientToken
        users = seed.users
    }

    enum LiveServerError: Error { case noSeed(String) }

    /// Settings pointing at this server's demo app.
    func settings() -> Settings {
        let settings = Settings()
        settings.appID = appID
        settings.clientToken = clientToken
        settings.displayName = "Gatehouse Demo"
        settings.serverURL = baseURL
        return settings
    }

    /// Asks the server to stop and returns at once (see ``ServedGatehouse/stop()``).
    func stop() { served.stop() }
}
