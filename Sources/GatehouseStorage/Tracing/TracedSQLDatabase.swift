import Logging
import NIOCore
import SQLKit

/// A connection whose every statement runs in a ``DatabaseSpans`` span, and so does every statement of a session
/// opened on it.
///
/// It wraps connections, beneath whatever routes statements to them (``SQLiteReadRouting``'s writer and readers),
/// so the stores and the router still see the database types they test for. Only a storage opened with tracing on
/// has one.
package struct TracedSQLDatabase: SQLDatabase {
    package let base: any SQLDatabase
    package let spans: DatabaseSpans

    package init(_ base: any SQLDatabase, spans: DatabaseSpans) {
        self.base = base
        self.spans = spans
    }

    package var logger: Logger { base.logger }
    package var eventLoop: any EventLoop { base.eventLoop }
    package var version: (any SQLDatabaseReportedVersion)? { base.version }
    package var dialect: any SQLDialect { base.dialect }
    package var queryLogLevel: Logger.Level? { base.queryLogLevel }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await spans.around(query, on: base) { try await base.execute(sql: query, onRow) }
    }

    package func withSession<R>(_ closure: @escaping @Sendable @concurrent (any SQLDatabase) async throws -> R)
        async throws -> R
    {
        let spans = self.spans
        return try await base.withSession { session in try await closure(TracedSQLDatabase(session, spans: spans)) }
    }
}
