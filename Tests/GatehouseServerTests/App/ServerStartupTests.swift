import AsyncHTTPClient
import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Testing
import NIOHTTP1

/// `serve --port 0` must hold its port from the moment it is chosen. It used to pick a free port, close it,
/// and bind it again only after migrations and the dev seed (seconds on a loaded machine); a server started
/// meanwhile could take the same port, and a client reading the first server's seed then talked to the
/// second server, which knew nothing of the app: the dialog answered 400 "This app does not exist".
@Suite struct ServerStartupTests {
    /// Runs the whole runner the way `gatehouse serve` does, but stoppable by an enclosing service group.
    struct RunnerService: Service {
        let configuration: GatehouseConfiguration
        let whileStarting: @Sendable (Int) async throws -> Void
        let announce: @Sendable (Int, DevSeed?) -> Void

        func run() async throws {
            var logger = Logger(label: "gatehouse.test.startup")
            logger.logLevel = .critical
            try await GatehouseServerRunner.run(
                configuration: configuration, logger: logger, stopsOnSignals: false, whileStarting: whileStarting,
                announce: announce)
        }
    }

    final class Observations: @unchecked Sendable {
        private let lock = NSLock()
        private var _portTakenByOthers: Bool?
        private var _answerWhileStarting: UInt?
        var portTakenByOthers: Bool? { lock.withLock { _portTakenByOthers } }
        var answerWhileStarting: UInt? { lock.withLock { _answerWhileStarting } }
        func record(takenByOthers: Bool) { lock.withLock { _portTakenByOthers = takenByOthers } }
        func record(answer: UInt) { lock.withLock { _answerWhileStarting = answer } }
    }

    @Test func thePortIsHeldWhileTheServerStartsAndTheSeedNamesThisServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, mode: .development)
        let seen = Observations()
        let announced = BoundPort()
        let runner = RunnerService(
            configuration: configuration,
            whileStarting: { port in
                // Another server trying to listen on the port now must fail: the port is already ours.
                do {
                    let other = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                        .bind(host: "127.0.0.1", port: port).get()
                    try await other.close()
                    seen.record(takenByOthers: true)
                } catch {
                    seen.record(takenByOthers: false)
                }
                // A client that guessed the port meanwhile is told to come back, not served half-ready.
                let early = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(30))
                seen.record(answer: early.status.code)
                #expect(early.headers.first(name: "Retry-After") == "1")
            },
            announce: { port, _ in announced.fulfil(.success(port)) })
        var quiet = Logger(label: "gatehouse.test.startup.group")
        quiet.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [runner], gracefulShutdownSignals: [], logger: quiet))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            let port = try await announced.value()
            #expect(seen.portTakenByOthers == false)
            #expect(seen.answerWhileStarting == 503)

            // The seed file appears only now, and the server it names is this one: it knows the seed's app.
            let data = try #require(
                FileManager.default.contents(atPath: directory.appendingPathComponent("dev-seed.json").path))
            let seed = try JSONDecoder().decode(DevSeed.self, from: data)
            #expect(seed.server == "http://127.0.0.1:\(port)")
            let app = try await HTTPClient.shared.execute(
                HTTPClientRequest(
                    url:
                        "\(seed.server)/v27.0/\(seed.app.id)?fields=id&access_token=\(seed.app.id)%7C\(seed.app.secret)"
                ),
                timeout: .seconds(30))
            #expect(app.status == .ok)
            let body = String(buffer: try await app.body.collect(upTo: 1 << 16))
            #expect(try JSONValue.parse(Data(body.utf8))["id"]?.stringValue == seed.app.id, "\(body)")

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func aPortAlreadyInUseIsReportedAndNoSeedIsWritten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let occupant = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
            host: "127.0.0.1", port: 0
        ).get()
        let port = try #require(occupant.localAddress?.port)
        let configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: port, dataDirectory: directory.path, mode: .development)
        var logger = Logger(label: "gatehouse.test.startup")
        logger.logLevel = .critical
        await #expect(throws: IOError.self) {
            try await GatehouseServerRunner.run(configuration: configuration, logger: logger, stopsOnSignals: false) {
                _, _ in
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("dev-seed.json").path))
        try await occupant.close()
    }
}
