import Foundation
import GatehouseCore
import GatehouseServer
@testable import GatehouseTesting
import Testing

/// The in-process emulator's database is deleted at stop, so its commits need not wait for the disk
/// (`synchronous=NORMAL`); every other server's do (`synchronous=FULL`, the configuration's default).
@Suite struct EmulatorDurabilityTests {
    @Test func theInProcessEmulatorsCommitsSurviveTheProcessOnlyAndAServersAPowerCut() async throws {
        let emulator = try await GatehouseEmulator.start()
        let configuration = try #require(emulator.local?.services.configuration)
        #expect(configuration.commitDurability == .processCrash)
        #expect(configuration.commitDurability.pragma == "PRAGMA synchronous=NORMAL")
        try await emulator.stop()
        let server = GatehouseConfiguration(host: "127.0.0.1", port: 0, dataDirectory: "/tmp", mode: .production)
        #expect(server.commitDurability == .powerLoss)
        #expect(server.commitDurability.pragma == "PRAGMA synchronous=FULL")
    }
}
