import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SQLKit

/// One SQLite writer and a few read-only connections on the same file, seen by the stores as one database.
///
/// In WAL mode readers run beside the writer, so a read never queues behind a write's fsync or behind another
/// read on a single connection. A statement is a read when it is a `SELECT` (built, or raw without
/// `RETURNING`); everything else, and every session (the migrations' transactions), goes to the writer, so a
/// transaction sees its own writes. Every state change is one autocommitted statement, and a reader's next
/// statement starts a new read transaction, so a read issued after a write has returned sees it.
///
/// `PRAGMA` statements go to the writer too: `PRAGMA data_version` (``SQLiteChangeWatcher``) must be asked on
/// the writer, where this process's own commits do not count as changes.
struct SQLiteReadRouting: SQLDatabase {
    let writer: any SQLDatabase
    let readers: [any SQLDatabase]
    private let turn = NIOLockedValueBox(0)

    init(writer: any SQLDatabase, readers: [any SQLDatabase]) {
        self.writer = writer
        self.readers = readers
    }

    var logger: Logger { writer.logger }
    var eventLoop: any EventLoop { writer.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { writer.version }
    var dialect: any SQLDialect { writer.dialect }
    var queryLogLevel: Logger.Level? { writer.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        database(for: query).execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await database(for: query).execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await writer.withSession(closure)
    }

    /// The next reader in turn for a read, the writer for anything else.
    func database(for query: any SQLExpression) -> any SQLDatabase {
        guard !readers.isEmpty, Self.isRead(query, serializingWith: writer) else { return writer }
        let index = turn.withLockedValue { value -> Int in
            value = (value + 1) % readers.count
            return value
        }
        return readers[index]
    }

    /// Whether `query` only reads: a built `SELECT` or `UNION`, or raw SQL that starts with `SELECT` and has no
    /// `RETURNING` clause.
    static func isRead(_ query: any SQLExpression, serializingWith database: any SQLDatabase) -> Bool {
        if query is SQLSelect || query is SQLUnion { return true }
        guard query is SQLQueryString else { return false }
        var serializer = SQLSerializer(database: database)
        query.serialize(to: &serializer)
        let sql = serializer.sql.drop { $0.isWhitespace }
        guard sql.prefix(6).uppercased() == "SELECT" else { return false }
        return sql.range(of: "RETURNING", options: .caseInsensitive) == nil
    }
}
