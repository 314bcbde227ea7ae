import AsyncHTTPClient
import ChildProcesses
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A real `gatehouse serve` child process (the binary SwiftPM built next to the test bundle), for tests of
/// what only a process shows: crashes, signals, several nodes.
final class GatehouseProcess: @unchecked Sendable {
    let process: ChildProcess
    /// The port the server bound and announced.
    private(set) var port = 0
    let dataDirectory: String

    static var binary: String { ChildProcess.builtProduct("gatehouse", override: "GATEHOUSE_BIN") }

    /// Starts `gatehouse serve` on a port it binds itself (`--port 0`) and waits until `/healthz` answers.
    ///
    /// The server picks the port: a port picked here and passed in could be taken by another process (another
    /// test's server) before this one binds it.
    /// - Parameter database: `--database` (nil: SQLite in `dataDirectory`).
    init(dataDirectory: String, database: String? = nil) async throws {
        self.dataDirectory = dataDirectory
        var arguments = ["serve", "--port", "0", "--data-dir", dataDirectory, "--log-level", "warning"]
        // A postgres:// database implies production mode, which refuses the dev seed these tests log in with;
        // production mode's own rules are covered by ProductionSafetyTests and CLIOpsTests.
        if let database { arguments += ["--database", database, "--mode", "development"] }
        process = try await ChildProcess.start(
            Self.binary, arguments: arguments, environment: ["GATEHOUSE_DATABASE_URL": nil])
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            if !isRunning { throw Failure.exited(log) }
            if let announced = Self.announcedPort(in: log) {
                port = announced
                if let status = try? await HTTP.get("http://127.0.0.1:\(announced)/healthz").status, status == .ok {
                    return
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        await kill()
        throw Failure.notReady(log)
    }

    /// The port in the banner's "Gatehouse is listening on http://127.0.0.1:PORT".
    static func announcedPort(in log: String) -> Int? {
        guard let range = log.range(of: "is listening on http://127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var log: String { process.output }

    /// The dev seed the first node on a database wrote.
    func seed() throws -> (appID: String, appSecret: String) {
        let data = try Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/dev-seed.json"))
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let app = json?["app"] as? [String: Any]
        guard let id = app?["id"] as? String, let secret = app?["secret"] as? String else { throw Failure.noSeed }
        return (id, secret)
    }

    /// A test user's token with `permissions`, minted through the Graph API (an answered issuance).
    func mintUserToken(permissions: String = "email") async throws -> String {
        let (appID, secret) = try seed()
        let reply = try await HTTP.post(
            "\(baseURL)/v21.0/\(appID)/accounts/test-users",
            form: ["installed": "true", "permissions": permissions, "access_token": "\(appID)|\(secret)"])
        guard reply.status == .ok, let token = reply.json["access_token"] as? String else {
            throw Failure.noToken(reply.text)
        }
        return token
    }

    /// SIGKILL: the process gets no chance to flush or close anything. Returns once it is gone.
    func kill() async { await process.kill() }

    /// SIGTERM: the graceful shutdown path.
    func terminate() { process.terminate() }

    /// Whether the process has not exited yet.
    var isRunning: Bool { process.isRunning }

    /// Waits for the process to end; its exit status (128 + signal if killed), or nil if it still runs after
    /// `timeout`.
    func exitStatus(timeout: TimeInterval) async -> Int32? {
        await process.exitStatus(timeout: .seconds(timeout))
    }

    enum Failure: Error { case exited(String), notReady(String), noSeed, noToken(String) }
}

/// Small HTTP helpers over AsyncHTTPClient's shared client.
enum HTTP {
    struct Reply: Sendable {
        var status: HTTPResponseStatus
        var text: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
        var errorCode: Int? { (json["error"] as? [String: Any])?["code"] as? Int }
    }

    static func get(_ url: String, timeout: TimeAmount = .seconds(10)) async throws -> Reply {
        try await send(HTTPClientRequest(url: url), timeout: timeout)
    }

    static func post(_ url: String, form: [String: String], method: HTTPMethod = .POST) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = form.map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }
        .joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        return try await send(request, timeout: .seconds(30))
    }

    static func send(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> Reply {
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: response.status, text: String(buffer: body))
    }
}
