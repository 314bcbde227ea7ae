import Logging
import PostgresKit
import SQLKit

/// A database that runs a ``SQLTextStatement`` with a ``SQLPreparedKey`` as a prepared statement: parsed and
/// described once per connection, then sent as Bind and Execute only.
///
/// ``SQLDatabase/rows(_:)`` and ``SQLDatabase/run(_:)`` take this path whenever the database offers it, so the
/// stores name their statements once (``SQLStatementText``) and never ask which database they are on.
package protocol PostgresPreparing: SQLDatabase {
    /// Every row `statement` returns, read by column name exactly as SQLKit's own rows are.
    func preparedRows(_ statement: SQLTextStatement) async throws -> [any SQLRow]
}

/// The statements postgres-nio prepares, one type per ``SQLPreparedKey``.
struct PostgresPrepared<Key: SQLPreparedKey>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { Key.name }

    /// Read when the statement is first prepared on a connection; ``SQLStatementText/on(_:_:)`` has built it
    /// for PostgreSQL by then (every run starts there).
    static var sql: String {
        guard let text = Key.statement.knownText(dialect: PostgresDialect().name) else {
            preconditionFailure("\(Key.name) is prepared before its text was built")
        }
        return text
    }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
    /// Runs `statement` prepared (its key's statement, prepared on this connection the first time).
    func preparedRows(_ statement: SQLTextStatement, logger: Logger) async throws -> [any SQLRow] {
        guard let key = statement.key else { preconditionFailure("a statement without a name is never prepared") }
        var bindings = PostgresBindings(capacity: statement.binds.count)
        for value in statement.binds { try PreparedBind.append(value, to: &bindings) }
        return try await run(key, bindings: bindings, logger: logger)
    }

    private func run<Key: SQLPreparedKey>(_: Key.Type, bindings: PostgresBindings, logger: Logger) async throws
        -> [any SQLRow]
    {
        var rows: [any SQLRow] = []
        // Read by name, the rows go through PostgresKit's adapter, so every column decodes as it does for an
        // unprepared statement; read by position (the caller's row), through postgres-nio (PostgresPreparedRow).
        for try await row in try await execute(PostgresPrepared<Key>(bindings: bindings), logger: logger) {
            rows.append(PostgresPreparedRow(row, statement: ObjectIdentifier(Key.self)))
        }
        return rows
    }
}

/// Binds for a prepared statement, encoded as PostgresKit encodes SQLKit's binds (the `PostgresEncodable` fast
/// path), except that a NULL keeps its Swift type's PostgreSQL type.
///
/// A prepared statement's parameter types are fixed by the first Parse on a connection: an untyped NULL there
/// would leave PostgreSQL to guess a type that a later, non-NULL call might not match.
private enum PreparedBind {
    static func append(_ value: any Encodable & Sendable, to bindings: inout PostgresBindings) throws {
        if let optional = value as? any TypedNullable {
            try optional.append(to: &bindings)
        } else if let value = value as? any PostgresThrowingDynamicTypeEncodable {
            try bindings.append(value, context: .default)
        } else {
            // Every store binds strings, integers and booleans; anything else is a new bind to teach this path.
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: [], debugDescription: "\(type(of: value)) cannot be bound to a prepared statement"))
        }
    }
}

private protocol TypedNullable {
    func append(to bindings: inout PostgresBindings) throws
}

extension Optional: TypedNullable where Wrapped: PostgresEncodable {
    fileprivate func append(to bindings: inout PostgresBindings) throws {
        switch self {
        case .some(let value): try bindings.append(value, context: .default)
        case .none: bindings.append(PostgresData(type: Wrapped.psqlType, value: nil))
        }
    }
}

/// One leased connection as a SQL database (a session, or the connection of a pinned transaction): SQLKit's
/// statements as PostgresKit runs them, and the prepared ones kept on this connection.
package struct PostgresSessionDatabase: PostgresPreparing {
    package let connection: PostgresConnection
    package let logger: Logger
    private let base: any SQLDatabase
    /// Every statement's span (``DatabaseSpans``); nil: tracing is off.
    private let spans: DatabaseSpans?

    package init(connection: PostgresConnection, logger: Logger, spans: DatabaseSpans? = nil) {
        self.connection = connection
        self.logger = logger
        self.base = connection.sql(queryLogLevel: nil, logger: logger)
        self.spans = spans
    }

    package var eventLoop: any EventLoop { base.eventLoop }
    package var dialect: any SQLDialect { base.dialect }
    package var queryLogLevel: Logger.Level? { nil }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        base.execute(sql: query, onRow)
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        guard let spans else { return try await base.execute(sql: query, onRow) }
        try await spans.around(query, on: base) { try await base.execute(sql: query, onRow) }
    }

    package func preparedRows(_ statement: SQLTextStatement) async throws -> [any SQLRow] {
        guard let spans else { return try await connection.preparedRows(statement, logger: logger) }
        return try await spans.around(statement, on: base) {
            try await connection.preparedRows(statement, logger: logger)
        }
    }
}
