import Foundation
import GatehouseCore
import GatehouseStorage
import Logging

/// A SQLite file with every migration applied, made once per test process and copied for each test that needs
/// a fresh database: a copy is one file write, where migrating anew is nine migrations and their fsyncs.
///
/// `SQLStorage.openSQLite` on the copy finds every migration recorded and applies none; the migrations
/// themselves still run from an empty file: the template is made that way, and `StoragePersistenceTests` and
/// `MigrateCommandTests` open empty files of their own.
package enum MigratedTemplate {
    private actor Maker {
        var made: Task<String, any Error>?

        func path() async throws -> String {
            if let made { return try await made.value }
            let task = Task<String, any Error> {
                // Every test copies it, up to the last one, so it is removed only by the exit sweep.
                let folder = try ScratchDirectory.create("template")
                let path = folder.url.appendingPathComponent("template.sqlite").path
                var logger = Logger(label: "template")
                logger.logLevel = .critical
                // Closing the last connection checkpoints the WAL into the main file, so that file is the whole database.
                let storage = try await SQLStorage.openSQLite(path: path, logger: logger)
                try await storage.shutdown()
                return path
            }
            made = task
            return try await task.value
        }
    }

    private static let maker = Maker()

    /// Puts a migrated, empty database at `path`, unless a file is already there.
    package static func copy(to path: String) async throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let template = try await maker.path()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // Copied under another name and renamed, so nobody ever opens half a file.
        let partial = path + ".template-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: template, toPath: partial)
        guard rename(partial, path) == 0 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
