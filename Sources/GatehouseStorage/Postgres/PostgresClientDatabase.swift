import GatehouseCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit

/// SQLKit over postgres-nio's `PostgresClient`: each statement leases a connection for itself, a session
/// (``withSession(_:)``, used for transactions) keeps one for the whole closure.
///
/// Rows and binds go through PostgresKit's own connection adapter (`PostgresConnection.sql()`), so values are
/// encoded and decoded exactly as before; only who owns the connections changed.
///
/// `PostgresClient` queues a lease for as long as it takes (up to a minute while the database is down, for ever
/// when every connection is busy). The server answers 503 long before that, so every lease gives up after
/// ``leaseTimeout`` with `StorageError.unavailable`, as AsyncKit's pool did.
///
/// Statements with a ``SQLPreparedKey`` run prepared (``PostgresPreparing``): each connection of the pool
/// prepares them once and keeps them until it closes.
package struct PostgresClientDatabase: PostgresPreparing {
    package let client: PostgresClient
    package let logger: Logger
    /// How long a statement waits for a free connection.
    package let leaseTimeout: Duration
    /// Every statement's span, its sessions' too (the wait for a connection included); nil: tracing is off.
    package var spans: DatabaseSpans?

    package init(client: PostgresClient, logger: Logger, leaseTimeout: Duration, spans: DatabaseSpans? = nil) {
        self.client = client
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        self.spans = spans
    }

    package var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    package var dialect: any SQLDialect { PostgresDialect() }
    package var queryLogLevel: Logger.Level? { nil }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        let promise = eventLoop.makePromise(of: Void.self)
        promise.completeWithTask { try await self.execute(sql: query, onRow) }
        return promise.futureResult
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        guard let spans else { return try await run(query, onRow) }
        try await spans.around(query, on: self) { try await run(query, onRow) }
    }

    private func run(_ query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        if let pinned = Pinned.current, pinned.client == ObjectIdentifier(client) {
            // Inside ``pinnedTransaction(_:finish:)``: the statement belongs to its transaction.
            return try await pinned.connection.sql(queryLogLevel: nil, logger: logger).execute(sql: query, onRow)
        }
        try await leased { connection in
            try await connection.sql(queryLogLevel: nil, logger: logger).execute(sql: query, onRow)
        }
    }

    package func preparedRows(_ statement: SQLTextStatement) async throws -> [any SQLRow] {
        guard let spans else { return try await runPrepared(statement) }
        return try await spans.around(statement, on: self) { try await runPrepared(statement) }
    }

    private func runPrepared(_ statement: SQLTextStatement) async throws -> [any SQLRow] {
        if let pinned = Pinned.current, pinned.client == ObjectIdentifier(client) {
            return try await pinned.connection.preparedRows(statement, logger: logger)
        }
        return try await leased { connection in
            UncheckedResult(try await connection.preparedRows(statement, logger: logger))
        }.value
    }

    package func withSession<R>(_ closure: @escaping @Sendable @concurrent (any SQLDatabase) async throws -> R)
        async throws -> R
    {
        let box = try await leased { connection in
            UncheckedResult(
                try await closure(PostgresSessionDatabase(connection: connection, logger: logger, spans: spans)))
        }
        return box.value
    }

    /// Runs `body` in one transaction on one leased connection: every statement this database executes from
    /// `body`'s task (and the tasks it starts) goes to that connection, so the stores built on this database
    /// write inside the transaction without being told. `finish` runs last, on the same connection, before
    /// `COMMIT`; when anything throws the transaction is rolled back and the error comes out unchanged.
    ///
    /// Sessions (``withSession(_:)``) are not pinned: they are transactions of their own, never opened inside one.
    package func pinnedTransaction(
        _ body: () async throws -> Void, finish: @escaping @Sendable (any SQLDatabase) async throws -> Void
    ) async throws {
        let pinned = ObjectIdentifier(client)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // A child task holds the lease (with its deadline) and hands the connection over; `body` runs here, in
            // the caller's task, and the child gives the connection back once it is told the transaction is over.
            let (leases, handOver) = AsyncThrowingStream.makeStream(of: PostgresConnection.self)
            let (over, end) = AsyncStream.makeStream(of: Never.self)
            group.addTask {
                do {
                    try await leased { connection in
                        handOver.yield(connection)
                        handOver.finish()
                        for await _ in over {}
                    }
                } catch {
                    handOver.finish(throwing: error)
                }
            }
            defer { end.finish() }
            var lease = leases.makeAsyncIterator()
            guard let connection = try await lease.next() else { throw CancellationError() }
            let session = PostgresSessionDatabase(connection: connection, logger: logger, spans: spans)
            // The transaction's own statements fail as every store's do; `body`'s errors come out unchanged.
            let own = SQLStoreContext(db: session, errors: .postgres)
            try await own.run { try await session.raw("BEGIN").run() }
            do {
                try await Pinned.$current.withValue(Pinned(client: pinned, connection: connection)) { try await body() }
                try await own.run { try await finish(session) }
                try await own.run { try await session.raw("COMMIT").run() }
            } catch {
                try? await session.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// Runs `body` on a leased connection; waiting longer than ``leaseTimeout`` for one is `unavailable`.
    private func leased<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws
        -> R
    {
        let lease = LeaseDeadline(timeout: leaseTimeout)
        return try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    // Once a connection is held the statement runs to the end, however long it takes.
                    guard lease.claim() else { return nil }
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: lease.timeout)
                return nil
            }
            while let outcome = try await group.next() {
                if let value = outcome {
                    group.cancelAll()
                    return value
                }
                if lease.expire() {
                    group.cancelAll()
                    throw StorageError.unavailable("no PostgreSQL connection became free within \(lease.timeout)")
                }
            }
            throw CancellationError()
        }
    }
}

/// The connection of the ``PostgresClientDatabase/pinnedTransaction(_:finish:)`` the current task runs in.
private struct Pinned: Sendable {
    /// The pool it was leased from: another storage's statements (a second node in one process) are not pinned.
    let client: ObjectIdentifier
    let connection: PostgresConnection

    @TaskLocal static var current: Pinned?
}

/// Who wins: the lease (the statement runs) or the deadline (the caller gets `unavailable`), decided once.
private final class LeaseDeadline: Sendable {
    let timeout: Duration
    private let state = NIOLockedValueBox<Bool?>(Bool?.none)
    init(timeout: Duration) { self.timeout = timeout }
    /// True when the lease came first.
    func claim() -> Bool {
        state.withLockedValue {
            if $0 == nil { $0 = true }; return $0 == true
        }
    }
    /// True when the deadline came first.
    func expire() -> Bool {
        state.withLockedValue {
            if $0 == nil { $0 = false }; return $0 == false
        }
    }
}

/// A session's result crosses the lease's closure; the closure has finished with it by then.
private struct UncheckedResult<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
