import GatehouseCore
import GatehouseStorage
import ArgumentParser
import Foundation
import GatehouseServer
import Logging

/// `gatehouse migrate`: brings the configured database's schema up to date and reports its versions.
///
/// `serve` migrates on start as well; this command lets an operator do it first (e.g. before rolling out
/// several nodes) and see where a database stands. Safe to run while nodes are serving and from several
/// places at once: migrations take a lock (PostgreSQL advisory lock, SQLite write lock) and each applies once.
struct MigrateCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply pending storage migrations and show the schema version.")

    @OptionGroup var data: DataOptions
    @Flag(help: "Print the result as JSON.") var json = false

    func execute() async throws {
        var logger = Logger(label: "gatehouse.migrate")
        logger.logLevel = .warning
        let location =
            try data.resolvedDatabase()
            ?? .sqlite(path: GatehouseConfiguration(dataDirectory: data.resolved).databasePath)
        let report: MigrationReport
        do {
            report = try await location.migrate(logger: logger)
        } catch StorageError.unavailable(let message) {
            throw fail(message)
        }
        if json {
            try printJSON(ReportJSON(database: location.description, report: report))
            return
        }
        print("Database: \(location)")
        print("Applied now: \(report.applied.isEmpty ? "nothing (already up to date)" : Self.list(report.applied))")
        print("Versions:    \(Self.list(report.after)) (latest known: \(report.latest))")
    }

    static func list(_ versions: [Int]) -> String { versions.map(String.init).joined(separator: ", ") }

    struct ReportJSON: Encodable {
        var database: String
        var applied: [Int]
        var versions: [Int]
        var latest: Int

        init(database: String, report: MigrationReport) {
            self.database = database
            applied = report.applied
            versions = report.after
            latest = report.latest
        }
    }
}
