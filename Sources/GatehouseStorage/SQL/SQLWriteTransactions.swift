import GatehouseCore
import NIOConcurrencyHelpers
import SQLKit

/// ``WriteTransactions`` on a SQL database: a session (one connection) with `BEGIN` … `COMMIT`.
///
/// On SQLite the session is the writer connection, held exclusively by ``SQLiteReadRouting`` for the whole
/// transaction so no other request's statement lands inside it; `BEGIN IMMEDIATE` takes the write lock up front
/// so a writer in another process makes this one wait (busy timeout) rather than fail half-way. On PostgreSQL
/// the session is one pooled connection.
///
/// The body's own errors come out unchanged (a refusal it decides stays that refusal); the database's errors
/// are classified as every store's are (`StorageError`).
package struct SQLWriteTransactions: WriteTransactions {
    package let database: any SQLDatabase
    package let errors: SQLErrorClassifier
    /// This node's caches and the channel to the other nodes; nil when nothing reads through a cache.
    package var announce: (caches: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher)?

    package func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        let begin: SQLQueryString = database.dialect.name == "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"
        let errors = self.errors
        let context = SQLStoreContext(db: database, errors: errors)
        let entered = NIOLockedValueBox(false)
        let announce = self.announce
        let held = HeldInvalidations()
        let result: R
        do {
            result = try await database.withSession { session in
                entered.withLockedValue { $0 = true }
                try await context.run { try await session.raw(begin).run() }
                let result: R
                let grants: any GrantStore = announce.map {
                    InvalidatingGrantStore(base: SQLGrantStore(database: session, errors: errors), caches: $0.caches, publisher: held)
                } ?? SQLGrantStore(database: session, errors: errors)
                do {
                    result = try await body(TransactionStores(
                        codes: SQLAuthCodeStore(database: session, errors: errors),
                        tokens: SQLTokenStore(database: session, errors: errors),
                        grants: grants))
                } catch {
                    try? await session.raw("ROLLBACK").run()
                    throw error
                }
                do {
                    try await context.run { try await session.raw("COMMIT").run() }
                } catch {
                    try? await session.raw("ROLLBACK").run()
                    throw error
                }
                // Now the change is visible: drop what this node cached meanwhile.
                if let announce { for event in held.events { announce.caches.invalidate(event) } }
                return result
            }
        } catch where !entered.withLockedValue({ $0 }) {
            // No connection for the session (PostgreSQL down, pool exhausted): the stores' usual error.
            return try await context.run { throw error }
        }
        // Told to the other nodes only once the session's connection is back in the pool: on PostgreSQL the
        // NOTIFY takes a pooled connection of its own, and with every connection held by a transaction waiting
        // to publish (concurrent consents for one person wait on the same grant row), none would come free.
        if let announce { for event in held.events { await announce.publisher.publish(event) } }
        return result
    }
}

/// Collects the invalidations a transaction's stores announce, to be sent once it has committed.
private final class HeldInvalidations: TokenInvalidationPublisher, @unchecked Sendable {
    private let lock = NIOLock()
    private var held: [TokenInvalidation] = []

    package func publish(_ event: TokenInvalidation) async { lock.withLock { held.append(event) } }
    package var events: [TokenInvalidation] { lock.withLock { held } }
}
