import Foundation

/// The stores a write transaction hands its body. Their writes commit together, or not at all.
package struct TransactionStores: Sendable {
    package var codes: any AuthCodeStore
    package var tokens: any TokenStore
    /// Grant changes are announced to the caches (here and on other nodes) once the transaction has committed.
    package var grants: any GrantStore
    /// Records the events the body's writes cause, in the transaction (the server's event log installs it; until
    /// then nothing is recorded).
    package var events: any TransactionEventRecorder
    /// The event table on the transaction's own connection, for the recorder above; nil when the backend does not
    /// write events in the transaction (PostgreSQL: they are recorded once it commits).
    package var eventTable: (any EventStore)?
    /// For the audit log (``AdminStore/appendAudit(_:)``): an admin change's audit row and its `admin.write` event
    /// commit together.
    package var admins: any AdminStore

    package init(
        codes: any AuthCodeStore, tokens: any TokenStore, grants: any GrantStore, admins: any AdminStore,
        eventTable: (any EventStore)? = nil
    ) {
        self.codes = codes
        self.tokens = tokens
        self.grants = grants
        self.admins = admins
        self.events = UnrecordedEvents()
        self.eventTable = eventTable
    }
}

/// Runs a request's writes as one transaction.
///
/// SQLite with `synchronous=FULL` pays one fsync per commit, which is the floor for an answered write that
/// survives `kill -9`; a route that consumes a code and mints a token in two autocommitted statements pays
/// two, and three more if each of its events committed by itself. The stores it hands out are the ones whose
/// writes are safe to group: codes, new tokens, grants, whose cache invalidations are held back until the commit
/// (announced before it, another node could cache what the transaction is about to change), and events.
///
/// The body must write only through the stores it is handed: on SQLite the writer is held for the whole
/// transaction, and a write through the shared stores would wait for it forever.
package protocol WriteTransactions: Sendable {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// `body` may run more than once (SQLite's group commit runs a group again when one of its writers failed
    /// half-way), so it must write only through its stores and do nothing else that cannot be repeated.
    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R

    /// Whether a body's events are stored in its transaction (``TransactionStores/eventTable``): then a write of
    /// one row is worth a transaction for its event's sake; otherwise it is cheaper alone.
    var storesEventsInTransaction: Bool { get }

    /// The code exchange's writes: consumes the code `id` at `at`, stores `token`, and records what `record` records
    /// through the transaction's event recorder, all committed together. False, with nothing written or recorded,
    /// when the code is unknown or already used.
    ///
    /// The default is a ``write(_:)`` of the two statements; a backend may send them as one (PostgreSQL: one
    /// statement, one round trip, its events after the commit as ``storesEventsInTransaction`` says).
    func consumeCode(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool

    /// The code exchange and `events` in one statement, where the backend can send them so (PostgreSQL, whose
    /// events otherwise follow the commit); nil, with nothing written, where it cannot, and the caller then uses
    /// ``consumeCode(id:at:storing:recording:)``. False when the code is unknown or used: nothing is written.
    func consumeCode(id: String, at: Date, storing token: TokenRecord, storingEvents events: [GatehouseEvent])
        async throws -> Bool?

    /// The consent's writes when it answers with a code: saves `grant` (announced as every grant change is) and
    /// stores `code`, committed together. The default is a ``write(_:)``; a backend may send them as one.
    func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws
}

extension WriteTransactions {
    package var storesEventsInTransaction: Bool { false }

    package func consumeCode(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool {
        try await consumeCodeInWrite(id: id, at: at, storing: token, recording: record)
    }

    package func consumeCode(
        id: String, at: Date, storing token: TokenRecord, storingEvents events: [GatehouseEvent]
    ) async throws -> Bool? { nil }

    /// The code exchange as a ``write(_:)`` of its two statements and its events: the default, and what a backend
    /// that sends it another way falls back to.
    package func consumeCodeInWrite(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool {
        try await write { tx in
            guard try await tx.codes.consume(id: id, at: at) else { return false }
            try await tx.tokens.insert(token)
            try await record(tx.events)
            return true
        }
    }

    package func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws {
        try await write { tx in
            try await tx.grants.save(grant)
            try await tx.codes.insert(code)
        }
    }
}

extension Storage {
    /// Runs `body` as one transaction when the backend offers them (``writes``), else on the plain stores.
    package func transaction<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R)
        async throws -> R
    {
        if let writes { return try await writes.write(body) }
        return try await body(TransactionStores(codes: codes, tokens: tokens, grants: grants, admins: admins))
    }

    /// ``WriteTransactions/consumeCode(id:at:storing:recording:)`` when the backend offers transactions, else on the
    /// plain stores (whose writes record no events).
    package func consumeCode(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool {
        if let writes { return try await writes.consumeCode(id: id, at: at, storing: token, recording: record) }
        guard try await codes.consume(id: id, at: at) else { return false }
        try await tokens.insert(token)
        return true
    }

    /// ``WriteTransactions/saveGrant(_:storing:)`` when the backend offers transactions, else on the plain stores.
    package func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws {
        if let writes { return try await writes.saveGrant(grant, storing: code) }
        try await grants.save(grant)
        try await codes.insert(code)
    }
}
