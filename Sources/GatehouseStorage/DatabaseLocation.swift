import GatehouseCore
import Foundation
import Logging
import NIOPosix
import PostgresKit
import ServiceLifecycle
import SQLKit
import SQLiteKit
import SQLiteNIO

extension DatabaseLocation {
    /// Parses `--database` / `GATEHOUSE_DATABASE_URL`: `postgres://…` or `postgresql://…` (also `+tcp`/`+uds`
    /// forms) is PostgreSQL; `sqlite:PATH`, `sqlite://PATH` or a plain path is a SQLite file.
    package init(parsing value: String) throws {
        let lower = value.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres+")
            || lower.hasPrefix("postgresql+")
        {
            _ = try PostgresStorage.configuration(url: value)
            self = .postgres(url: value)
        } else if lower.hasPrefix("sqlite://") {
            self = .sqlite(path: String(value.dropFirst("sqlite://".count)))
        } else if lower.hasPrefix("sqlite:") {
            self = .sqlite(path: String(value.dropFirst("sqlite:".count)))
        } else if value.contains("://") {
            throw StorageError.unavailable(
                "unsupported database URL scheme in \(PostgresStorage.redacted(value)): use postgres://… or a SQLite file path"
            )
        } else if value.isEmpty {
            throw StorageError.unavailable("the database location is empty")
        } else {
            self = .sqlite(path: value)
        }
    }

    /// Opens (and migrates) the database.
    /// - Parameters:
    ///   - random: where app-scoped ids come from.
    ///   - clock: the services' clock, for the times the stores stamp themselves.
    ///   - pool: the connection pool from ``makeConnectionPool(logger:)`` that the caller runs (the server's
    ///     service group); nil lets the storage run its own until it shuts down.
    ///   - tracesStatements: every statement run inside a trace gets a client span (``DatabaseSpans``), sent
    ///     wherever the process's tracer sends spans; false, the default, makes none and costs nothing.
    ///   - durability: what a SQLite commit survives (PostgreSQL's are its server's business).
    package func open(
        logger: Logger, random: any RandomSource = SystemRandomSource(), clock: any GatehouseClock = SystemClock(),
        pool: DatabaseConnectionPool? = nil, tracesStatements: Bool = false,
        durability: CommitDurability = .powerLoss
    ) async throws -> Storage {
        switch self {
        case .sqlite(let path):
            try await SQLStorage.openSQLite(
                path: path, logger: logger, random: random, clock: clock,
                spans: tracesStatements ? DatabaseSpans(system: "sqlite") : nil, durability: durability)
        case .postgres(let url):
            try await PostgresStorage.open(
                url: url, logger: logger, random: random, clock: clock, client: pool?.client,
                spans: tracesStatements ? DatabaseSpans(system: "postgresql") : nil)
        }
    }

    /// The connection pool a long-running owner runs as a service of its group, before anything that uses the
    /// storage; nil for SQLite, whose few connections the storage opens and closes itself.
    /// - Throws: `StorageError.unavailable` when the URL is not a PostgreSQL URL.
    package func makeConnectionPool(logger: Logger) throws -> DatabaseConnectionPool? {
        switch self {
        case .sqlite: nil
        case .postgres(let url):
            DatabaseConnectionPool(client: try PostgresStorage.makeClient(url: url, logger: logger))
        }
    }

    /// Applies pending migrations and reports the versions before and after (`gatehouse migrate`).
    package func migrate(logger: Logger) async throws -> MigrationReport {
        switch self {
        case .sqlite(let path):
            let connection = try await SQLiteDatabaseFactory.open(path: path, logger: logger)
            do {
                let report = try await Self.migrate(connection.sql(queryLogLevel: nil), errors: .sqlite)
                try? await connection.close()
                return report
            } catch {
                try? await connection.close()
                throw error
            }
        case .postgres(let url):
            let connection = try await singlePostgresConnection(url: url, logger: logger)
            do {
                let report = try await Self.migrate(connection.sql(queryLogLevel: nil), errors: .postgres)
                try? await connection.close()
                return report
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    /// One PostgreSQL connection of its own, outside the server's pool (`gatehouse migrate`, the bench tools).
    /// - Throws: `StorageError.unavailable` naming this location when the server cannot be reached.
    package func singlePostgresConnection(url: String, logger: Logger) async throws -> PostgresConnection {
        let configuration = try PostgresStorage.configuration(url: url)
        do {
            return try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration.coreConfiguration,
                id: 0, logger: logger)
        } catch {
            throw StorageError.unavailable(
                "cannot connect to \(description): \(SQLErrorClassifier.postgres.describe(error))")
        }
    }

    private static func migrate(_ db: any SQLDatabase, errors: SQLErrorClassifier) async throws -> MigrationReport {
        try await SQLStoreContext(db: db, errors: errors).run {
            try await SQLMigrator.migrate(db, migrations: [])  // creates the bookkeeping table only
            let before = try await SQLStorage.appliedMigrations(db)
            try await SQLStorage.migrate(db)
            let after = try await SQLStorage.appliedMigrations(db)
            return MigrationReport(before: before, after: after, latest: SQLStorage.latestMigration)
        }
    }
}

/// What `gatehouse migrate` did.
package struct MigrationReport: Sendable, Equatable, Codable {
    /// Versions recorded before this run, ascending.
    package var before: [Int]
    /// Versions recorded after it.
    package var after: [Int]
    /// The newest version this build knows.
    package var latest: Int

    /// Versions this run applied.
    package var applied: [Int] { after.filter { !before.contains($0) } }
}

/// PostgreSQL's connection pool (postgres-nio's `PostgresClient`) as a swift-service-lifecycle `Service`.
///
/// On graceful shutdown it closes its connections, so its group must list it before the services that use the
/// database (the group stops services in reverse order).
package struct DatabaseConnectionPool: Service {
    package let client: PostgresClient

    package init(client: PostgresClient) {
        self.client = client
    }

    package func run() async throws {
        await client.run()
    }
}
