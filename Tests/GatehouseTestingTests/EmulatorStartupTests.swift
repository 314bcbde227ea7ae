import Foundation
import Testing

/// Issue 31, item 3: the emulator a test starts is the server people deploy. It once built its own service group
/// with a copy of the runner's start-up and skipped the exposure check, the console clock's restore and the journal
/// writer. Now both go through `ServerStartup`; this test fails if GatehouseTesting grows a start-up of its own.
@Suite struct EmulatorStartupTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/GatehouseTesting")

    /// What only a start-up sequence constructs or calls.
    static let startupSteps = [
        "ServiceGroup(", "GatehouseServices(", "Application(", "DevSeeder(", "CacheInvalidationService(",
        "outboxWorker",
        "journalTableWriter", "ClockControl(", "checkExposure", "databaseLocation.open", "PageRenderer.load",
    ]

    @Test func theEmulatorStartsThroughTheServersOwnStartUp() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.contains("GatehouseEmulator.swift"))
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for step in Self.startupSteps where text.contains(step) { found.append("\(file): \(step)") }
        }
        #expect(found.isEmpty, "start-up steps outside ServerStartup: \(found)")
        let emulator = try String(
            contentsOf: Self.sources.appendingPathComponent("GatehouseEmulator.swift"), encoding: .utf8)
        #expect(emulator.contains("ServerStartup.prepare("))
        #expect(emulator.contains("ServerStartup.bringUp("))
    }
}
