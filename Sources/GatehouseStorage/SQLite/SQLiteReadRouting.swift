import GatehouseCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SQLKit
import Tracing

/// One SQLite writer and a few read-only connections on the same file, seen by the stores as one database.
///
/// In WAL mode readers run beside the writer, so a read never queues behind a write's fsync or behind another
/// read on a single connection. A statement is a read when it is a `SELECT` (built, or raw without
/// `RETURNING`); everything else, and every session (the migrations' transactions), goes to the writer, so a
/// transaction sees its own writes. Every state change is one autocommitted statement, and a reader's next
/// statement starts a new read transaction, so a read issued after a write has returned sees it.
///
/// Everything on the writer runs through a ``WriterGate``: a session (the migrations) or a group of writes
/// (``GroupCommit``: the stores' transactions and their single-row writes) holds it from `BEGIN` to `COMMIT`, so
/// no other statement lands inside a transaction. A transaction's body must therefore
/// write only through the stores it is handed; reads through the shared stores go to the readers and are fine.
///
/// `PRAGMA` statements go to the writer too: `PRAGMA data_version` (``SQLiteChangeWatcher``) must be asked on
/// the writer, where this process's own commits do not count as changes.
package struct SQLiteReadRouting: SQLDatabase {
    package let writer: any SQLDatabase
    package let readers: [any SQLDatabase]
    private let turn = NIOLockedValueBox(0)
    private let gate: WriterGate
    /// Writes that arrive while another commits are committed together (``GroupCommit``).
    package let group: GroupCommit
    /// Closes the connections behind `writer` and `readers` (nil: the caller owns them).
    package let closer: SQLiteConnectionCloser?
    /// Reads with kept statements on the caller's thread (``SQLImmediateReads``); nil: every read is routed.
    package let kept: SQLiteKeptReads?
    /// The kept reads' spans, and whether a write carries its caller's trace into the group that commits it
    /// (``TracedSQLDatabase`` makes the other statements' spans); nil: tracing is off.
    package let spans: DatabaseSpans?

    package init(
        writer: any SQLDatabase, readers: [any SQLDatabase], closer: SQLiteConnectionCloser? = nil,
        kept: SQLiteKeptReads? = nil, spans: DatabaseSpans? = nil
    ) {
        self.writer = writer
        self.readers = readers
        self.closer = closer
        self.kept = kept
        self.spans = spans
        let gate = WriterGate()
        self.gate = gate
        self.group = GroupCommit(writer: writer, gate: gate)
    }

    /// Runs `body` in a transaction on the writer, committed with whatever other writes are waiting then.
    package func transaction<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws
        -> R
    {
        try await group.write(inCallersTrace(body))
    }

    package var logger: Logger { writer.logger }
    package var eventLoop: any EventLoop { writer.eventLoop }
    package var version: (any SQLDatabaseReportedVersion)? { writer.version }
    package var dialect: any SQLDialect { writer.dialect }
    package var queryLogLevel: Logger.Level? { writer.queryLogLevel }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        if let reader = reader(for: query) { return reader.execute(sql: query, onRow) }
        return eventLoop.makeFutureWithTask { try await self.onWriter(query, onRow) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        if let reader = reader(for: query) { return try await reader.execute(sql: query, onRow) }
        try await onWriter(query, onRow)
    }

    package func withSession<R>(_ closure: @escaping @Sendable @concurrent (any SQLDatabase) async throws -> R)
        async throws -> R
    {
        let writer = self.writer
        // `R` need not be Sendable here (SQLKit's signature); it only travels back to this caller.
        let box = try await gate.exclusively { UncheckedBox(try await writer.withSession(closure)) }
        return box.value
    }

    private func onWriter(_ query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        if Self.isRowWrite(query) {
            try await group.write(
                isSingleStatement: true, inCallersTrace { db in try await db.execute(sql: query, onRow) })
            return
        }
        let writer = self.writer
        try await gate.exclusively { try await writer.execute(sql: query, onRow) }
    }

    /// `work` as the group's leader runs it: in the trace, and with the tracer, of the caller who queued it, when
    /// tracing is on (the leader's own task is in its own request's trace).
    private func inCallersTrace<R>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> R)
        -> @Sendable (any SQLDatabase) async throws -> R
    {
        guard spans != nil, let context = ServiceContext.current else { return work }
        let tracer = InstrumentationSystem.tracer
        return { db in
            try await withTracer(tracer) { try await ServiceContext.withValue(context) { try await work(db) } }
        }
    }

    /// Whether `query` is one `INSERT`, `UPDATE` or `DELETE`, which may share a group's commit; raw SQL and
    /// pragmas run on their own.
    package static func isRowWrite(_ query: any SQLExpression) -> Bool {
        if query is SQLInsert || query is SQLUpdate || query is SQLDelete { return true }
        if let statement = query as? SQLTextStatement { return !statement.isRead }
        return false
    }

    /// The next reader in turn for a read; nil for anything else, or when there are no readers.
    package func reader(for query: any SQLExpression) -> (any SQLDatabase)? {
        guard !readers.isEmpty, Self.isRead(query, serializingWith: writer) else { return nil }
        let index = turn.withLockedValue { value -> Int in
            value = (value + 1) % readers.count
            return value
        }
        return readers[index]
    }

    /// Whether `query` only reads: a built `SELECT` or `UNION`, a kept ``SQLTextStatement`` that reads, or raw
    /// SQL that starts with `SELECT` and has no `RETURNING` clause.
    package static func isRead(_ query: any SQLExpression, serializingWith database: any SQLDatabase) -> Bool {
        if query is SQLSelect || query is SQLUnion { return true }
        if let statement = query as? SQLTextStatement { return statement.isRead }
        guard query is SQLQueryString else { return false }
        var serializer = SQLSerializer(database: database)
        query.serialize(to: &serializer)
        let sql = serializer.sql.drop { $0.isWhitespace }
        guard sql.prefix(6).uppercased() == "SELECT" else { return false }
        return sql.range(of: "RETURNING", options: .caseInsensitive) == nil
    }
}

extension SQLiteReadRouting: SQLImmediateReads {
    package func rowsNow(_ statement: SQLStatementText, _ binds: [String]) -> [any SQLRow]? {
        guard let kept else { return nil }
        let text = statement.on(writer, binds).text
        guard let spans else { return kept.rows(text, binds: binds) }
        return spans.answered(text) { kept.rows(text, binds: binds) }
    }
}

/// Carries a session's result out of the gate; it is handed to nobody but the caller that asked for it.
private struct UncheckedBox<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
