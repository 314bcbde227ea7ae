import Foundation
import Logging
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// A SQLite storage closes its files at `shutdown`, and also when it is dropped without one: no leaked file
/// handles, and no sqlite-nio debug assertion ending the test process.
@Suite("SQLite connections closed")
struct SQLiteConnectionCloserTests {
    /// How many of this process's file descriptors point at `path`.
    static func openDescriptors(to path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path
        }.count
    }

    static func temporaryDatabase() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-closer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("gatehouse.sqlite").path
    }

    @Test func shutdownClosesTheWriterAndEveryReader() async throws {
        let path = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let storage = try await SQLStorage.openSQLite(path: path, logger: StorageBackends.logger)
        _ = try await storage.apps.find(id: "1")
        #expect(Self.openDescriptors(to: path) >= 2, "the writer and at least one reader hold the file")
        try await storage.shutdown()
        #expect(Self.openDescriptors(to: path) == 0)
        try await storage.shutdown()  // a second shutdown does nothing
    }

    @Test func aStorageDroppedWithoutShutdownClosesItsFiles() async throws {
        let path = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        do {
            let storage = try await SQLStorage.openSQLite(path: path, logger: StorageBackends.logger)
            _ = try await storage.apps.find(id: "1")
            #expect(Self.openDescriptors(to: path) >= 2)
        }
        // The closes run on sqlite-nio's thread pool once the last copy of the storage is gone.
        try await waitUntil { Self.openDescriptors(to: path) == 0 }
    }
}
