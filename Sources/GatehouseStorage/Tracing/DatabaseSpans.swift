import NIOConcurrencyHelpers
import SQLKit
import Tracing

/// The client spans of the statements the stores run, named and described as OpenTelemetry's database semantic
/// conventions say: `SELECT users` (`db.operation.name` and `db.collection.name`), kind client, with
/// `db.system.name` (`sqlite` or `postgresql`) and `db.query.text`.
///
/// It is the one place a statement's span is made: ``TracedSQLDatabase`` (SQLite's connections, so routed reads,
/// group commits and sessions), ``SQLiteReadRouting/rowsNow(_:_:)`` (kept reads) and ``PostgresClientDatabase``
/// with its sessions all call it. A storage opened without it (tracing off, the default) holds nil and runs
/// exactly as before: the hot paths test one optional and allocate nothing.
///
/// The query text is the statement's parameterised text (`?` or `$1` where values are bound), never a bound
/// value. A statement outside any trace (the change watcher's polls, housekeeping between requests) makes no
/// span: a database span is only ever a child, of the request or outbox attempt that ran it.
///
/// A class, so the hot paths' test for nil is one pointer's (measured: a struct's several words cost 0.5 ns a read).
package final class DatabaseSpans: Sendable {
    /// `db.system.name`: `sqlite` or `postgresql`.
    package let system: String
    /// Where the spans go; nil: the task's tracer, as the request's span binds it (`withTracer`), else the one
    /// the process bootstrapped (`InstrumentationSystem.tracer` answers both).
    private let tracer: (any Tracer)?
    private let summaries = StatementSummaries()

    /// - Parameters:
    ///   - system: `db.system.name` of the database the statements run on.
    ///   - tracer: where the spans go (tests); nil, the default: the task's tracer or the process's.
    package init(system: String, tracer: (any Tracer)? = nil) {
        self.system = system
        self.tracer = tracer
    }

    /// Runs `body` in a client span for `query` (serialized with `database`'s dialect) when the current task is in
    /// a trace; otherwise only runs it.
    package func around<R>(
        _ query: any SQLExpression, on database: any SQLDatabase, _ body: () async throws -> R
    ) async throws -> R {
        guard let context = ServiceContext.current else { return try await body() }
        let span = start(text: Self.text(of: query, on: database), context: context, at: DefaultTracerClock.now)
        defer { span.end() }
        do {
            return try await body()
        } catch {
            failed(span, error)
            throw error
        }
    }

    /// Runs `body`, a read that may decline (nil), and records a span for `text` only when it answered, so a read
    /// the caller then takes another way is traced once, on that way.
    package func answered<R>(_ text: String, _ body: () -> R?) -> R? {
        guard let context = ServiceContext.current else { return body() }
        let started = DefaultTracerClock.now
        guard let answer = body() else { return nil }
        start(text: text, context: context, at: started).end()
        return answer
    }

    /// What a statement's span says about it: its operation and, when it names one first, its table.
    package struct Summary: Sendable, Equatable {
        /// `db.operation.name`: the statement's first keyword (`SELECT`, `INSERT`, `BEGIN` …).
        package let operation: String
        /// `db.collection.name`: the table a `SELECT … FROM`, `INSERT INTO`, `UPDATE` or `DELETE FROM` names
        /// first; nil for anything else (a subquery, a pragma, a transaction's own statements).
        package let collection: String?

        /// The span's name: the operation and the table (`SELECT users`), or the operation alone.
        package var spanName: String { collection.map { "\(operation) \($0)" } ?? operation }
    }

    /// The summary of the statement `sql` (SQLKit's text: keywords in capitals, separated by spaces).
    package static func summary(of sql: String) -> Summary {
        let words = sql.split(whereSeparator: \.isWhitespace)
        let operation = words.first.map { $0.uppercased() } ?? ""
        let table: Substring? =
            switch operation {
            case "SELECT", "DELETE": words.firstIndex(of: "FROM").flatMap { words[($0 + 1)...].first }
            case "INSERT", "REPLACE": words.firstIndex(of: "INTO").flatMap { words[($0 + 1)...].first }
            case "UPDATE": words.dropFirst().first
            default: nil
            }
        // A quoted name loses its quotes; a subquery or an expression is no table.
        let name = table.map { String($0.filter { $0 != "\"" && $0 != "`" }) } ?? ""
        guard let head = name.first, head.isLetter || head == "_",
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
        else { return Summary(operation: operation, collection: nil) }
        return Summary(operation: operation, collection: name)
    }

    /// The statement's SQL text as its database receives it, binds as placeholders.
    private static func text(of query: any SQLExpression, on database: any SQLDatabase) -> String {
        if let statement = query as? SQLTextStatement { return statement.text }
        var serializer = SQLSerializer(database: database)
        query.serialize(to: &serializer)
        return serializer.sql
    }

    private func start(text: String, context: ServiceContext, at instant: some TracerInstant) -> any Span {
        let summary = summaries.summary(of: text)
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let span: any Span = tracer.startSpan(summary.spanName, context: context, ofKind: .client, at: instant)
        let system = self.system
        span.updateAttributes { attributes in
            attributes["db.system.name"] = system
            attributes["db.operation.name"] = summary.operation
            if let collection = summary.collection { attributes["db.collection.name"] = collection }
            attributes["db.query.text"] = text
        }
        return span
    }

    /// Marks `span` failed with the error's type only: a driver's message may quote what was stored.
    private func failed(_ span: any Span, _ error: any Error) {
        span.attributes["error.type"] = String(describing: type(of: error))
        span.setStatus(SpanStatus(code: .error))
    }
}

/// Statements' summaries by text: the stores run a few hundred distinct statements, so each is read once.
private final class StatementSummaries: Sendable {
    /// More distinct texts than this (lists of varying length) are summarised every time instead.
    private static let limit = 1024
    private let known = NIOLockedValueBox<[String: DatabaseSpans.Summary]>([:])

    func summary(of text: String) -> DatabaseSpans.Summary {
        if let summary = known.withLockedValue({ $0[text] }) { return summary }
        let summary = DatabaseSpans.summary(of: text)
        known.withLockedValue { if $0.count < Self.limit { $0[text] = summary } }
        return summary
    }
}
