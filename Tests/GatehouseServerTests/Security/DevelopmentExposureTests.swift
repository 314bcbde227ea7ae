import AsyncHTTPClient
import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import NIOHTTP1

/// Issue 12, finding 3: development mode (password-free login, open console, export with signing keys) stays on
/// this machine: it refuses a non-loopback listen address unless told `--dev-allow-remote`, and answers 421 to
/// any `Host` that is neither loopback nor its public URL (DNS rebinding).
@Suite struct DevelopmentExposureTests {
    /// What `GatehouseServerRunner.run` did within a few seconds: threw, or started listening (then it is stopped).
    enum Outcome { case threw(any Error), listened }

    static func start(
        _ configure: (inout GatehouseConfiguration) -> Void,
        logger: Logger = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }
    ) async throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-exposure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, mode: .development)
        configure(&configuration)
        let listening = ListeningFlag(), ended = EndedBox()
        let server = Task { [configuration] in
            do {
                try await GatehouseServerRunner.run(configuration: configuration, logger: logger) { _, _ in
                    listening.set()
                }
                ended.set(nil)
            } catch {
                ended.set(error)
            }
        }
        for _ in 0..<200 {
            if listening.value { break }
            if let end = ended.value { return .threw(end ?? CancellationError()) }
            try await Task.sleep(for: .milliseconds(50))
        }
        server.cancel()
        await server.value
        return listening.value ? .listened : .threw(CancellationError())
    }

    @Test func developmentModeRefusesToListenOnEveryInterface() async throws {
        for host in ["0.0.0.0", "::"] {
            let outcome = try await Self.start { $0.host = host }
            guard case .threw(let error) = outcome, let refusal = error as? ConfigurationError else {
                Issue.record("development mode on \(host) was not refused: \(outcome)")
                continue
            }
            #expect(
                refusal.message.hasPrefix(
                    "development mode listens on loopback only, and host \(host) is reachable from the network."))
            #expect(refusal.message.contains("--mode production"))
            #expect(refusal.message.contains("--dev-allow-remote"))
        }
    }

    /// The same start-up check `run` makes first; run here alone, because a started server cannot be stopped
    /// from inside a test without a signal that would stop every other live test too.
    @Test func devAllowRemoteIsAllowedButLogsALoudWarning() throws {
        let logs = CapturedLogs()
        var configuration = GatehouseConfiguration(host: "0.0.0.0", mode: .development)
        configuration.devAllowRemote = true
        try GatehouseServerRunner.checkExposure(configuration, logger: logs.logger)
        #expect(
            logs.all.contains {
                $0.hasPrefix("critical ") && $0.contains("DEVELOPMENT MODE IS REACHABLE FROM THE NETWORK on 0.0.0.0")
            })
        // Without the flag the same check refuses (as `run` does, above).
        configuration.devAllowRemote = false
        #expect(throws: ConfigurationError.self) {
            try GatehouseServerRunner.checkExposure(configuration, logger: logs.logger)
        }
    }

    @Test func aRebindingHostHeaderGets421InDevelopmentMode() async throws {
        let server = try await TestServer.make()
        try await server.run(.live) { client in
            let port = try #require(client.port)
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            func get(_ path: String, host: String) async throws -> (Int, String) {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                request.headers.replaceOrAdd(name: "Host", value: host)
                let response = try await http.execute(request, timeout: .seconds(120))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), String(buffer: body))
            }
            do {
                for evil in [
                    "rebind.evil.example", "rebind.evil.example:\(port)", "127.0.0.1.evil.example", "10.0.0.5",
                ] {
                    for path in ["/console", "/admin/api/v1/state", "/healthz"] {
                        let (status, body) = try await get(path, host: evil)
                        #expect(status == 421, "\(evil)\(path)")
                        #expect(
                            body
                                == "This development server answers only to localhost, 127.0.0.1, [::1] or its public URL.\n"
                        )
                    }
                }
                // Loopback names and the configured public URL (http://gatehouse.test) are served.
                for good in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "gatehouse.test"] {
                    let (status, _) = try await get("/healthz", host: good)
                    #expect(status == 200, "\(good)")
                }
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }
}

/// How the server task ended: `.some(nil)` returned, `.some(error)` threw, nil still running.
final class EndedBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?? = nil
    func set(_ error: (any Error)?) { lock.withLock { stored = .some(error) } }
    var value: (any Error)?? { lock.withLock { stored } }
}

final class ListeningFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}
