import ChildProcesses
import Foundation
import GatehouseKit
import GatehouseTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `gatehouse serve` process on a free port with a fresh data directory, and its dev seed.
///
/// The binary is the one SwiftPM built next to the test bundle (or `GATEHOUSE_BIN`).
final class LiveServer: @unchecked Sendable {
    struct SeedUser: Sendable { let id: String; let name: String; let email: String; let password: String }

    let process: ChildProcess
    /// The data directory, removed once the process has exited (see ``stop()``).
    let scratch: ScratchDirectory
    var directory: String { scratch.path }
    let baseURL: URL
    let appID: String
    let appSecret: String
    let clientToken: String
    let users: [SeedUser]

    static var binary: String { ChildProcess.builtProduct("gatehouse", override: "GATEHOUSE_BIN") }

    /// Starts the server and waits until it has written its seed. Throws if it does not start.
    /// - Parameter environment: extra environment variables for the server (e.g. a short device poll interval).
    init(environment: [String: String] = [:]) async throws {
        let scratch = try ScratchDirectory.create("kit")
        self.scratch = scratch
        let directory = scratch.path
        // `GATEHOUSE_LIVE_LOGS=DIR` keeps each server's debug log in DIR, to see what a server saw when a
        // live test failed; without it the servers log errors only, to nowhere.
        let logDirectory = ProcessInfo.processInfo.environment["GATEHOUSE_LIVE_LOGS"]
        let arguments = [
            "serve", "--port", "0", "--data-dir", directory, "--log-level", logDirectory == nil ? "error" : "debug",
        ]
        var standardError = ChildProcess.StandardError.discarded
        if let logDirectory {
            try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
            standardError = .file(logDirectory + "/" + URL(fileURLWithPath: directory).lastPathComponent + ".log")
        }
        do {
            process = try await ChildProcess.start(
                Self.binary, arguments: arguments, environment: environment, standardError: standardError)
        } catch {
            scratch.remove()
            throw error
        }
        let seedPath = directory + "/dev-seed.json"
        var seed: [String: Any]?
        for _ in 0..<1500 {
            if let data = FileManager.default.contents(atPath: seedPath),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                seed = json; break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard let seed, let server = seed["server"] as? String, let app = seed["app"] as? [String: Any],
            let users = seed["users"] as? [[String: String]]
        else {
            await process.kill()
            scratch.remove()
            throw LiveServerError.didNotStart
        }
        baseURL = URL(string: server)!
        appID = app["id"] as! String
        appSecret = app["secret"] as! String
        clientToken = app["client_token"] as! String
        self.users = users.map {
            SeedUser(id: $0["id"]!, name: $0["name"]!, email: $0["email"]!, password: $0["password"]!)
        }
        // The server writes its seed once it serves requests; the first answer confirms it is this server.
        for _ in 0..<500 {
            if (try? await URLSession.shared.data(from: baseURL.appendingPathComponent("healthz"))) != nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        // Nobody gets a server to stop: stop this one here, then remove its folder.
        await process.kill()
        scratch.remove()
        throw LiveServerError.didNotStart
    }

    enum LiveServerError: Error { case didNotStart }

    /// Settings pointing at this server's demo app.
    func settings() -> Settings {
        let settings = Settings()
        settings.appID = appID
        settings.clientToken = clientToken
        settings.displayName = "Gatehouse Demo"
        settings.serverURL = baseURL
        return settings
    }

    /// Asks the server to stop and returns at once. Waiting for the exit here would block one of the two
    /// cooperative threads every async test shares, for as long as the server takes to drain its keep-alive
    /// connections; with many live-server suites in parallel that starved timer-based tests. The process is
    /// reaped and its folder removed in a task instead; a folder whose task has not run when the test process
    /// exits is removed by `ScratchDirectory`'s exit sweep.
    func stop() {
        process.terminate()
        Task { [process, scratch] in
            await process.waitForExit()
            scratch.remove()
        }
    }
}
