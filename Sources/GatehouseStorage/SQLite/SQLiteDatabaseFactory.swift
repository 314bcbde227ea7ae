import GatehouseCore
import Foundation
import Logging
import NIOCore
import SQLKit
import SQLiteKit

/// Opens and configures the SQLite file behind ``SQLStorage/openSQLite(path:logger:random:)``.
///
/// One writer connection takes every change (SQLite serialises statements on it, and every state change is a
/// single statement, so no explicit transactions are needed outside migrations); ``readerCount`` read-only
/// connections beside it serve reads (see ``SQLiteReadRouting``).
package enum SQLiteDatabaseFactory {
    /// Read-only connections per process: one per core, at least two and at most four.
    package static let readerCount = min(4, max(2, System.coreCount))

    /// Pragmas for a reader: it may never write, and waits for a checkpoint rather than failing.
    package static let readerPragmas = [
        "PRAGMA query_only=ON",
        "PRAGMA busy_timeout=5000",
    ]

    /// Pragmas applied to every new writer connection, in order; `synchronous` as `durability` asks.
    package static func pragmas(_ durability: CommitDurability = .powerLoss) -> [String] {
        ["PRAGMA journal_mode=WAL", durability.pragma, "PRAGMA busy_timeout=5000", "PRAGMA foreign_keys=ON"]
    }

    /// Creates parent folders (and a new file with mode 0600), opens the connection and applies ``pragmas(_:)``.
    /// - Throws: `StorageError.unavailable` when any step fails; the message names the path, never contents.
    package static func open(
        path: String, logger: Logger, durability: CommitDurability = .powerLoss
    ) async throws -> SQLiteConnection {
        try prepareFile(at: path)
        return try await open(path: path, pragmas: pragmas(durability), logger: logger)
    }

    /// Opens ``readerCount`` read-only connections on a database the writer has already created and migrated.
    package static func openReaders(path: String, logger: Logger) async throws -> [SQLiteConnection] {
        var readers: [SQLiteConnection] = []
        do {
            for _ in 0..<readerCount {
                readers.append(try await open(path: path, pragmas: readerPragmas, logger: logger))
            }
        } catch {
            for reader in readers { try? await reader.close() }
            throw error
        }
        return readers
    }

    private static func open(path: String, pragmas: [String], logger: Logger) async throws -> SQLiteConnection {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path),
                threadPool: .singleton,
                logger: logger,
                on: MultiThreadedEventLoopGroup.singleton.any()
            )
        } catch {
            throw StorageError.unavailable("cannot open SQLite database at \(path): \(describe(error))")
        }
        do {
            let db = connection.sql(queryLogLevel: nil)
            for pragma in pragmas {
                try await db.raw(SQLQueryString(pragma)).run()
            }
            let mode = try await db.raw("PRAGMA journal_mode").first(decodingColumn: "journal_mode", as: String.self)
            if mode?.lowercased() != "wal" {
                logger.warning("SQLite did not switch to WAL", metadata: ["path": "\(path)", "mode": "\(mode ?? "?")"])
            }
        } catch {
            try? await connection.close()
            throw StorageError.unavailable("cannot configure SQLite database at \(path): \(describe(error))")
        }
        logger.debug("Opened SQLite storage", metadata: ["path": "\(path)"])
        return connection
    }

    /// Makes the parent folder, and the file itself owner-only when it does not exist yet.
    package static func prepareFile(at path: String) throws {
        let files = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StorageError.unavailable("cannot create folder \(folder) for the database")
        }
        if !files.fileExists(atPath: path) {
            // SQLite gives the -wal and -shm files the same permissions as the database file.
            _ = files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
    }

    package static func describe(_ error: any Error) -> String {
        if let error = error as? SQLiteError { return "\(error.reason): \(error.message)" }
        return String(describing: type(of: error))
    }
}
