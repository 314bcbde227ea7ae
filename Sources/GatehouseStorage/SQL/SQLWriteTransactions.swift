import Foundation
import GatehouseCore
import NIOConcurrencyHelpers
import SQLKit

/// ``WriteTransactions`` on a SQL database: a session (one connection) with `BEGIN` … `COMMIT`.
///
/// On SQLite the body joins ``SQLiteReadRouting``'s ``GroupCommit``: it runs on the writer connection inside the
/// group's `BEGIN IMMEDIATE` (the write lock up front, so a writer in another process makes this one wait rather
/// than fail half-way), in a savepoint of its own when a neighbour in the group failed, and returns once the group's
/// `COMMIT` has. On PostgreSQL the session is one pooled connection, and the body's invalidations are announced
/// on it (``SessionAnnouncing``) just before `COMMIT`.
///
/// The body's own errors come out unchanged (a refusal it decides stays that refusal); the database's errors
/// are classified as every store's are (`StorageError`).
package struct SQLWriteTransactions: WriteTransactions {
    package let database: any SQLDatabase
    package let errors: SQLErrorClassifier
    /// This node's caches and the channel to the other nodes; nil when nothing reads through a cache.
    package var announce: (caches: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher)?

    package func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R
    {
        let begin: SQLQueryString = database.dialect.name == "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"
        let errors = self.errors
        let context = SQLStoreContext(db: database, errors: errors)
        let entered = NIOLockedValueBox(false)
        let announce = self.announce
        let held = HeldInvalidations()
        let result: R
        if let sqlite = database as? SQLiteReadRouting {
            // SQLite: the body joins the next group commit, which begins, commits and rolls back for it.
            result = try await sqlite.transaction { session in
                try await body(Self.stores(session, errors: errors, announce: announce, held: held))
            }
            if let announce {
                for event in held.events { announce.caches.invalidate(event) }
                for event in held.events { await announce.publisher.publish(event) }
            }
            return result
        }
        do {
            result = try await database.withSession { session in
                entered.withLockedValue { $0 = true }
                try await context.run { try await session.raw(begin).run() }
                let result: R
                do {
                    result = try await body(Self.stores(session, errors: errors, announce: announce, held: held))
                } catch {
                    try? await session.raw("ROLLBACK").run()
                    throw error
                }
                do {
                    // Announced inside the transaction, so PostgreSQL delivers it exactly when the COMMIT happens; a
                    // failed announcement rolls the change back rather than leave other nodes' caches stale.
                    if let announcer = announce?.publisher as? any SessionAnnouncing {
                        let events = held.events
                        try await context.run { try await announcer.announce(events, on: session) }
                    }
                    try await context.run { try await session.raw("COMMIT").run() }
                } catch {
                    try? await session.raw("ROLLBACK").run()
                    throw error
                }
                // Now the change is visible: drop what this node cached meanwhile.
                if let announce { for event in held.events { announce.caches.invalidate(event) } }
                return result
            }
        } catch  where !entered.withLockedValue({ $0 }) {
            // No connection for the session (PostgreSQL down, pool exhausted): the stores' usual error.
            return try await context.run { throw error }
        }
        // A publisher that cannot join the transaction (a test's recorder) hears of it once it has committed.
        if let announce, !(announce.publisher is any SessionAnnouncing) {
            for event in held.events { await announce.publisher.publish(event) }
        }
        return result
    }
}

extension SQLWriteTransactions {
    /// SQLite only (see ``stores(_:errors:announce:held:)``).
    package var storesEventsInTransaction: Bool { database.dialect.name == "sqlite" }

    /// On PostgreSQL one statement in one round trip (``SQLAuthCodeStore/consume(id:at:storing:)``; a new token
    /// invalidates no cache, and the events follow the commit there anyway); elsewhere the two statements in a
    /// ``write(_:)``, with the events.
    package func consumeCode(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool {
        guard database is any PostgresPreparing else {
            return try await consumeCodeInWrite(id: id, at: at, storing: token, recording: record)
        }
        guard try await SQLAuthCodeStore(database: database, errors: errors).consume(id: id, at: at, storing: token)
        else { return false }
        try await record(UnrecordedEvents())
        return true
    }

    /// PostgreSQL: the exchange and its events in one statement (``SQLAuthCodeStore/consume(id:at:storing:events:)``).
    package func consumeCode(
        id: String, at: Date, storing token: TokenRecord, storingEvents events: [GatehouseEvent]
    ) async throws -> Bool? {
        guard database is any PostgresPreparing else { return nil }
        return try await SQLAuthCodeStore(database: database, errors: errors)
            .consume(id: id, at: at, storing: token, events: events)
    }

    /// On PostgreSQL, with its notifications, one statement in one round trip
    /// (``SQLGrantStore/save(_:storing:notifying:of:)``), this node's caches dropped before and after it as
    /// ``InvalidatingGrantStore`` drops them; elsewhere the two statements in a ``write(_:)``.
    package func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws {
        if database is any PostgresPreparing, let announce,
            let publisher = announce.publisher as? PostgresNotifyPublisher
        {
            let event = TokenInvalidation.appUser(appID: grant.appID, userID: grant.userID)
            announce.caches.invalidate(event)
            try await SQLGrantStore(database: database, errors: errors)
                .save(grant, storing: code, notifying: publisher.channel, of: event.payload)
            announce.caches.invalidate(event)
            return
        }
        try await write { tx in
            try await tx.grants.save(grant)
            try await tx.codes.insert(code)
        }
    }

    /// The stores a transaction's body writes through, all on `session`.
    fileprivate static func stores(
        _ session: any SQLDatabase, errors: SQLErrorClassifier,
        announce: (caches: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher)?,
        held: HeldInvalidations
    ) -> TransactionStores {
        let grants: any GrantStore =
            announce.map {
                InvalidatingGrantStore(
                    base: SQLGrantStore(database: session, errors: errors), caches: $0.caches, publisher: held)
            } ?? SQLGrantStore(database: session, errors: errors)
        return TransactionStores(
            codes: SQLAuthCodeStore(database: session, errors: errors),
            tokens: SQLTokenStore(database: session, errors: errors),
            grants: grants, admins: SQLAdminStore(database: session, errors: errors),
            // SQLite: a transaction's events cost one statement in its group commit. PostgreSQL: each event is a
            // round trip under the events' advisory lock, held to the commit; measured, a token exchange cost
            // 688 µs of CPU that way against 409 with the event after the commit, so there events stay after it.
            eventTable: session.dialect.name == "sqlite" ? SQLEventStore(database: session, errors: errors) : nil)
    }
}

/// A publisher that can announce on the connection of a transaction already open, before it commits: a
/// ``SQLWriteTransactions`` body's events then reach the other nodes exactly when, and only if, it commits.
package protocol SessionAnnouncing: TokenInvalidationPublisher {
    /// Announces `events` inside the transaction open on `session`; throwing makes the transaction roll back.
    func announce(_ events: [TokenInvalidation], on session: any SQLDatabase) async throws
}

/// Collects the invalidations a transaction's stores announce, to be sent with its commit.
private final class HeldInvalidations: TokenInvalidationPublisher, @unchecked Sendable {
    private let lock = NIOLock()
    private var held: [TokenInvalidation] = []

    package func publish(_ event: TokenInvalidation) async { lock.withLock { held.append(event) } }
    package var events: [TokenInvalidation] { lock.withLock { held } }
}
