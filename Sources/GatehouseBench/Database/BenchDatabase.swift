import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Foundation
import Logging
import PostgresKit
import SQLKit
import SQLiteKit
import SQLiteNIO

/// One raw connection to the server's database, opened the way the server opens it, for the bench tools
/// (`gatehouse seed bench`, `gatehouse bench commit-rate`).
///
/// A single connection rather than the server's PostgreSQL pool: the seeder wraps batches in `BEGIN`/`COMMIT`,
/// which must all run on one connection, and the commit probe measures one committer at a time.
package enum BenchDatabase {
    /// Opens `location` (SQLite with the server's pragmas, or one PostgreSQL connection), applies migrations
    /// when `migrating`, runs `body` and closes the connection whatever happens.
    package static func with<T>(
        _ location: DatabaseLocation, logger: Logger, migrating: Bool = true,
        _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        switch location {
        case .sqlite(let path):
            if migrating { return try await SQLStorage.withSQLiteDatabase(path: path, logger: logger, body) }
            let connection = try await SQLiteDatabaseFactory.open(path: path, logger: logger)
            return try await run(connection.sql(queryLogLevel: nil), body, close: { try await connection.close() })
        case .postgres(let url):
            let connection = try await location.singlePostgresConnection(url: url, logger: logger)
            let db = connection.sql(queryLogLevel: nil)
            return try await run(
                db,
                { db in
                    if migrating {
                        try await SQLStoreContext(db: db, errors: .postgres).run { try await SQLStorage.migrate(db) }
                    }
                    return try await body(db)
                }, close: { try await connection.close() })
        }
    }

    private static func run<T>(
        _ db: any SQLDatabase, _ body: (any SQLDatabase) async throws -> T, close: () async throws -> Void
    ) async throws -> T {
        do {
            let result = try await body(db)
            try await close()
            return result
        } catch {
            try? await close()
            throw error
        }
    }
}
