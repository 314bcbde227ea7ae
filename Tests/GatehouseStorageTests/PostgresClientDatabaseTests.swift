import Foundation
import PostgresKit
import SQLKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// SQLKit over `PostgresClient` (``PostgresClientDatabase``): statements and sessions on the pool, and a wait
/// for a free connection that ends in `unavailable` instead of queueing for ever.
@Suite("PostgreSQL connection pool", .timeLimit(.minutes(10)))
struct PostgresClientDatabaseTests {
    /// Runs `body` with a running one-connection pool on a fresh database; stops the pool and drops the database.
    func withPool(_ body: @escaping @Sendable (PostgresClient) async throws -> Void) async throws {
        let url = try await PostgresTestDatabase.create()
        let client = try PostgresStorage.makeClient(
            url: url, logger: StorageBackends.logger, options: .init(maximumConnections: 1))
        let outcome: Result<Void, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do { return .success(try await body(client)) } catch { return .failure(error) }
        }
        try? await PostgresTestDatabase.drop(url)
        try outcome.get()
    }

    /// Statements on `client` that wait at most `leaseTimeout` for its connection.
    func database(_ client: PostgresClient, leaseTimeout: Duration) -> PostgresClientDatabase {
        PostgresClientDatabase(client: client, logger: StorageBackends.logger, leaseTimeout: leaseTimeout)
    }

    @Test func statementsAndSessionsRunOnThePool() async throws {
        try await withPool { client in
            let db = database(client, leaseTimeout: .seconds(30))
            try await db.raw("CREATE TABLE t (n INTEGER)").run()
            // Through the protocol, as the stores call it: SQLKit's default `withSession` (which hands over
            // `self`, one lease per statement) must never be the one that runs.
            let erased: any SQLDatabase = db
            try await erased.withSession { session in
                #expect(!(session is PostgresClientDatabase))
                try await session.raw("BEGIN").run()
                try await session.raw("INSERT INTO t VALUES (1), (2)").run()
                try await session.raw("COMMIT").run()
            }
            let sum = try await db.raw("SELECT SUM(n) AS s FROM t").first(decodingColumn: "s", as: Int.self)
            #expect(sum == 3)
        }
    }

    @Test func aStatementThatFindsNoFreeConnectionFailsAsUnavailableAndTheNextOneRuns() async throws {
        try await withPool { client in
            // The holder may wait as long as it takes the pool to open its connection on a loaded machine; only
            // the statement that queues behind it is impatient.
            let patient = database(client, leaseTimeout: .seconds(30))
            let db = database(client, leaseTimeout: .milliseconds(300))
            let release = AsyncStream<Void>.makeStream()
            let holding = AsyncStream<Void>.makeStream()
            // The pool's only connection is held by a session until `release` fires.
            async let held: Int? = patient.withSession { session in
                holding.continuation.yield()
                for await _ in release.stream { break }
                return try await session.raw("SELECT 7 AS n").first(decodingColumn: "n", as: Int.self)
            }
            for await _ in holding.stream { break }
            let started = ContinuousClock.now
            await #expect {
                try await db.raw("SELECT 1").run()
            } throws: { error in
                guard case StorageError.unavailable(let message) = error else { return false }
                return message.contains("no PostgreSQL connection became free")
            }
            // Its own 300 ms, not the holder's 30 s nor the release: 20 s leaves room for a loaded machine (6.4 s seen).
            #expect(ContinuousClock.now - started < .seconds(20), "the wait gave up after its timeout, not later")
            release.continuation.yield()
            let heldAnswer = try await held
            #expect(heldAnswer == 7)
            // The connection the timed-out statement waited for is free again and serves the next one.
            let next = try await patient.raw("SELECT 2 AS n").first(decodingColumn: "n", as: Int.self)
            #expect(next == 2)
        }
    }
}
