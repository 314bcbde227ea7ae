import Foundation
import Logging
import SQLKit
import SQLiteKit

/// Opens and configures the SQLite file behind ``SQLStorage/openSQLite(path:logger:random:)``.
///
/// One `SQLiteConnection` serves the whole process; SQLite serialises statements on it and every state
/// change is a single statement, so no explicit transactions are needed outside migrations.
enum SQLiteDatabaseFactory {
    /// Pragmas applied to every new connection, in order.
    static let pragmas = [
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=FULL",
        "PRAGMA busy_timeout=5000",
        "PRAGMA foreign_keys=ON",
    ]

    /// Creates parent folders (and a new file with mode 0600), opens the connection and applies ``pragmas``.
    /// - Throws: `StorageError.unavailable` when any step fails; the message names the path, never contents.
    static func open(path: String, logger: Logger) async throws -> SQLiteConnection {
        try prepareFile(at: path)
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
    static func prepareFile(at path: String) throws {
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

    static func describe(_ error: any Error) -> String {
        if let error = error as? SQLiteError { return "\(error.reason): \(error.message)" }
        return String(describing: type(of: error))
    }
}
