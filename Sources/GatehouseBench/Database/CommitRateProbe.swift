import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Foundation
import Logging
import SQLKit

/// The disk's rate of one-row commits, measured through the server's own storage settings.
///
/// Every answered write must survive `kill -9`, so each one costs at least one durable commit: with SQLite in
/// WAL mode and `synchronous=FULL` an fsync of the WAL, with PostgreSQL a flush of its WAL
/// (`synchronous_commit=on`). This loop of autocommitted single-row `INSERT`s, on a connection opened exactly
/// like the server's (``BenchDatabase``, hence ``SQLiteDatabaseFactory``'s pragmas), is therefore the ceiling
/// `scripts/bench` holds the write routes against.
package struct CommitRateProbe: Sendable {
    /// What one probe run measured.
    package struct Result: Codable, Sendable, Equatable {
        /// `sqlite` or `postgres`.
        package var database: String
        package var commits: Int
        package var seconds: Double
        package var commitsPerSecond: Double
    }

    /// The table the probe writes; created and dropped by the probe, so it must be a throwaway database or a
    /// name no one else uses.
    package static let table = "gatehouse_commit_probe"

    package let location: DatabaseLocation
    package let duration: Duration
    package let logger: Logger

    package init(location: DatabaseLocation, duration: Duration, logger: Logger) {
        self.location = location
        self.duration = duration
        self.logger = logger
    }

    /// Commits one row at a time for ``duration`` (after a short warm-up) and counts them.
    package func run() async throws -> Result {
        let name: String
        switch location {
        case .sqlite: name = "sqlite"
        case .postgres: name = "postgres"
        }
        let duration = self.duration
        // No migrations: the probe needs none of Gatehouse's tables, and skipping them keeps the file small.
        return try await BenchDatabase.with(location, logger: logger, migrating: false) { db in
            try await db.raw("DROP TABLE IF EXISTS \(unsafeRaw: Self.table)").run()
            try await db.raw("CREATE TABLE \(unsafeRaw: Self.table) (id BIGINT PRIMARY KEY, payload TEXT NOT NULL)")
                .run()
            var next = 0
            func commitOne() async throws {
                next += 1
                try await db.insert(into: Self.table).columns("id", "payload").values(next, "probe row \(next)").run()
            }
            // Warm-up: the first commits also grow the WAL file, which later ones reuse.
            for _ in 0..<20 { try await commitOne() }
            // Real elapsed time on purpose: the probe measures the disk, not the emulator's clock.
            let clock = ContinuousClock()
            let start = clock.now
            var commits = 0
            while clock.now - start < duration {
                try await commitOne()
                commits += 1
            }
            let elapsed = clock.now - start
            try await db.raw("DROP TABLE \(unsafeRaw: Self.table)").run()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return Result(
                database: name, commits: commits, seconds: seconds, commitsPerSecond: Double(commits) / seconds)
        }
    }
}
