import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// The one launcher of `gatehouse serve`: what it hands a test when the server starts, and what its failure says
/// when it does not.
@Suite(.tags(.process)) struct ServedGatehouseTests {
    @Test func aReadyServerHasItsPortSeedAndFolderAndStopsWithStatusZero() async throws {
        let server = try await ServedGatehouse.start()
        let seed = try #require(server.seed)
        #expect(server.port > 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        #expect(seed.server == server.baseURL)
        #expect(seed.users.map(\.email) == ["alice@gatehouse.test", "bob@gatehouse.test", "carol@gatehouse.test"])
        #expect(server.output.contains("Gatehouse is listening on \(server.baseURL) (development mode)\n"))
        #expect(FileManager.default.fileExists(atPath: server.dataDirectory + "/dev-seed.json"))
        #expect(await server.stopAndWait() == 0)
        // A scratch folder is the launcher's: gone once the server has stopped.
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory))
    }

    @Test func aServerThatExitsFailsWithItsStatusAndEverythingItPrinted() async throws {
        do {
            let server = try await ServedGatehouse.start(environment: ["GATEHOUSE_LOG_FORMAT": "xml"])
            server.stop()
            Issue.record("a server with an unknown log format started")
        } catch let failure as ServedGatehouse.NotReady {
            #expect(failure.reason == "it exited with status 1 before it was ready")
            #expect(failure.lastSeen == "no banner yet")
            #expect(
                failure.output
                    == "gatehouse: log format must be text or json, not xml (--log-format or GATEHOUSE_LOG_FORMAT)\n")
        }
    }

    @Test func thePassingDeadlineStopsTheServerAndSaysWhatItLastSaw() async throws {
        do {
            let server = try await ServedGatehouse.start(deadline: .zero)
            server.stop()
            Issue.record("ready within no time at all")
        } catch let failure as ServedGatehouse.NotReady {
            #expect(failure.reason == "not ready within 0.0 seconds")
            #expect(failure.lastSeen == "no banner yet")
            #expect(failure.description.hasPrefix("gatehouse serve did not become ready: not ready within 0.0 seconds"))
        }
    }
}
