import NIOConcurrencyHelpers
import SQLKit

/// A statement's SQL text, built with SQLKit once per dialect and then run with fresh binds.
///
/// SQLKit's builders serialize a statement again on every call, quoting each identifier as they go (about 9%
/// of a code exchange's CPU in the profile). The statements every write route runs keep their text instead:
/// `shape` builds the statement with placeholder values, the text it serializes to is kept per dialect, and
/// each call appends its own binds, which must be as many and in the same order as `shape`'s.
///
/// On PostgreSQL a statement given a ``SQLPreparedKey`` is also prepared once per connection (postgres-nio's
/// `PostgresPreparedStatement`) and from then on sent as Bind and Execute only, without its text
/// (``PostgresPreparing``). SQLite and PostgreSQL share the one text `shape` builds.
package final class SQLStatementText: Sendable {
    private let shape: @Sendable (any SQLDatabase) -> any SQLExpression
    private let binds: Int
    private let key: (any SQLPreparedKey.Type)?
    private let texts = NIOLockedValueBox<[String: (text: String, isRead: Bool)]>([:])

    /// - Parameters:
    ///   - binds: how many values the statement takes (checked against what `shape` serializes to).
    ///   - key: the name PostgreSQL keeps the statement under; nil sends its text every time.
    ///   - shape: the statement built with any `binds` values in their places.
    package init(
        binds: Int, preparedAs key: (any SQLPreparedKey.Type)? = nil,
        _ shape: @escaping @Sendable (any SQLDatabase) -> any SQLExpression
    ) {
        self.binds = binds
        self.key = key
        self.shape = shape
    }

    /// The statement for `database`, with `values` bound in order.
    package func on(_ database: any SQLDatabase, _ values: [any Encodable & Sendable]) -> SQLTextStatement {
        precondition(values.count == binds, "a statement of \(binds) binds given \(values.count)")
        let (text, isRead) = text(for: database)
        return SQLTextStatement(text: text, binds: values, isRead: isRead, key: key)
    }

    /// The text already built for the dialect named `dialect`, if any statement has run on it.
    package func knownText(dialect: String) -> String? {
        texts.withLockedValue { $0[dialect]?.text }
    }

    /// `count` stand-in values for a shape.
    package static func placeholders(_ count: Int) -> [any Encodable & Sendable] {
        Array(repeating: 0, count: count)
    }

    private func text(for database: any SQLDatabase) -> (text: String, isRead: Bool) {
        let dialect = database.dialect.name
        if let known = texts.withLockedValue({ $0[dialect] }) { return known }
        var serializer = SQLSerializer(database: database)
        shape(database).serialize(to: &serializer)
        precondition(
            serializer.binds.count == binds, "the statement's shape has \(serializer.binds.count) binds, not \(binds)")
        let text = serializer.sql
        let known = (text, text.utf8.starts(with: "SELECT".utf8) && !text.contains("RETURNING"))
        texts.withLockedValue { $0[dialect] = known }
        return known
    }
}

/// The name a statement is prepared under on PostgreSQL, and the statement: postgres-nio reads both from a type
/// (`PostgresPreparedStatement`'s static `name` and `sql`), so each prepared statement has a key type of its own.
package protocol SQLPreparedKey: SendableMetatype {
    /// The prepared statement's name on each connection (short: every Bind message carries it).
    static var name: String { get }
    /// The statement; its PostgreSQL text is built the first time it runs there.
    static var statement: SQLStatementText { get }
}

/// Ready SQL text and its binds, as SQLKit runs any expression.
package struct SQLTextStatement: SQLExpression {
    package let text: String
    package let binds: [any Encodable & Sendable]
    /// Whether it only reads: a `SELECT` without `RETURNING` (``SQLiteReadRouting`` sends those to a reader).
    package let isRead: Bool
    /// The name PostgreSQL keeps it under, if it is prepared there.
    package var key: (any SQLPreparedKey.Type)? = nil

    package func serialize(to serializer: inout SQLSerializer) {
        serializer.write(text)
        serializer.binds.append(contentsOf: binds)
    }
}

extension SQLDatabase {
    /// Every row `statement` returns.
    package func rows(_ statement: SQLTextStatement) async throws -> [any SQLRow] {
        if statement.key != nil, let preparing = self as? any PostgresPreparing {
            return try await preparing.preparedRows(statement)
        }
        let rows = NIOLockedValueBox<[any SQLRow]>([])
        try await execute(sql: statement) { row in rows.withLockedValue { $0.append(row) } }
        return rows.withLockedValue { $0 }
    }

    /// Runs `statement`, ignoring any rows.
    package func run(_ statement: SQLTextStatement) async throws {
        if statement.key != nil, let preparing = self as? any PostgresPreparing {
            _ = try await preparing.preparedRows(statement)
            return
        }
        try await execute(sql: statement) { _ in }
    }
}
