import Foundation
import GatehouseCore

extension Storage {
    /// These stores with every token written or revoked announced as an event (`token.issued`, `token.revoked`),
    /// whichever path wrote it: the token endpoint, the dialog, the JavaScript SDK, the admin API, the console,
    /// password and state changes, app removal. A token stored in a transaction is announced once it commits.
    ///
    /// A token issued is announced in the transaction that stores it (one commit for both); a revocation is
    /// announced after it.
    package func announcingTokenEvents(to events: any EventRecorder) -> Storage {
        var storage = self
        let writes = EventWriteTransactions(base: writes ?? PlainWrites(storage: self), events: events)
        storage.tokens = EventTokenStore(base: tokens, events: events, writes: writes)
        storage.writes = writes
        return storage
    }
}

/// The event a stored token is announced with; never the token itself (only its record's id).
enum TokenEvents {
    static func issued(_ token: TokenRecord, to events: any TransactionEventRecorder) async throws {
        var details = ["token_id": token.id, "kind": token.kind.rawValue]
        if let origin = token.origin { details["origin"] = origin }
        if let expires = token.expiresAt { details["expires_at"] = GatehouseEvent.timeText(expires) }
        try await events.record(.tokenIssued, appID: token.appID, personID: token.userID, details)
    }

    /// `token.revoked` for each token in `tokens`; `details` say which revocation (`scope`) ended them.
    static func revoked(_ tokens: [TokenRecord], to events: any EventRecorder, _ details: [String: String]) async {
        for token in tokens {
            var details = details
            details["token_id"] = token.id
            details["kind"] = token.kind.rawValue
            await events.record(.tokenRevoked, appID: token.appID, personID: token.userID, details)
        }
    }
}

/// Announces each token stored in the transaction that stores it, and each revocation after it.
struct EventTokenStore: TokenStore {
    let base: any TokenStore
    let events: any EventRecorder
    /// Stores a token and its `token.issued` in one transaction.
    let writes: EventWriteTransactions

    func insert(_ token: TokenRecord) async throws {
        guard writes.storesEventsInTransaction else {
            try await base.insert(token)
            return try await TokenEvents.issued(token, to: AfterTheWrite(events: events))
        }
        try await writes.write { tx in try await tx.tokens.insert(token) }
    }
    func find(tokenHash: String) async throws -> TokenRecord? { try await base.find(tokenHash: tokenHash) }
    func setExpiry(id: String, expiresAt: Date?) async throws { try await base.setExpiry(id: id, expiresAt: expiresAt) }
    func revoke(id: String, at: Date) async throws -> [TokenRecord] {
        await announced(try await base.revoke(id: id, at: at), at: at, ["scope": "token"])
    }
    func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        await announced(
            try await base.revokeAll(appID: appID, userID: userID, at: at), at: at, ["scope": "app_and_person"])
    }
    func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        await announced(try await base.revokeAll(userID: userID, at: at), at: at, ["scope": "person"])
    }
    func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        await announced(
            try await base.revokeAll(codeID: codeID, at: at), at: at, ["scope": "code_family", "code_id": codeID])
    }

    /// One `token.revoked` per token this revocation ended: none when nothing was live (a person with no token, a
    /// token already revoked); a token whose expiry had passed was already announced by `token.expired`.
    private func announced(_ revoked: [TokenRecord], at: Date, _ details: [String: String]) async -> [TokenRecord] {
        await TokenEvents.revoked(revoked.filter { $0.expiresAt.map { $0 > at } ?? true }, to: events, details)
        return revoked
    }
    func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        try await base.live(appID: appID, userID: userID, now: now)
    }
}

/// Gives each transaction's body an event recorder that writes in the transaction, and announces every token the
/// body stores there too: the write and its events commit together (a rolled-back write has none).
struct EventWriteTransactions: WriteTransactions {
    let base: any WriteTransactions
    let events: any EventRecorder

    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        let events = self.events
        let (result, recorded) = try await base.write { tx in
            // Fresh for each run: a group commit may run the body again.
            let recorder = EventsInTransaction(log: events as? EventLog, table: tx.eventTable)
            let gatherer = StoredTokens(base: tx.tokens)
            var stores = tx
            stores.tokens = gatherer
            stores.events = recorder
            let result = try await body(stores)
            for token in gatherer.stored.withLockedValue({ $0 }) { try await TokenEvents.issued(token, to: recorder) }
            try await recorder.store()
            return (result, recorder)
        }
        await recorded.committed(announcingTo: events)
        return result
    }

    var storesEventsInTransaction: Bool { base.storesEventsInTransaction }

    /// In the transaction where events are stored there (SQLite); elsewhere the backend's own exchange (on
    /// PostgreSQL one statement), the token and the body's events announced once it has committed.
    func consumeCode(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool {
        guard !storesEventsInTransaction else {
            return try await consumeCodeInWrite(id: id, at: at, storing: token, recording: record)
        }
        let after = EventsInTransaction(log: events as? EventLog, table: nil)
        try await record(after)
        try await TokenEvents.issued(token, to: after)
        // PostgreSQL: the events in the exchange's own statement, when no sink waits for them.
        if let drafted = after.drafted(), drafted.allSatisfy(\.deliveries.isEmpty),
            let consumed = try await base.consumeCode(
                id: id, at: at, storing: token, storingEvents: drafted.map(\.event))
        {
            return consumed
        }
        guard try await base.consumeCode(id: id, at: at, storing: token, recording: { _ in }) else { return false }
        // Both events in one append once the exchange has committed (there is no event table in it).
        await after.committed(announcingTo: events)
        return true
    }

    func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws {
        try await base.saveGrant(grant, storing: code)
    }
}

/// Records each event at once, as a commit of its own (a backend that stores no events in transactions).
private struct AfterTheWrite: TransactionEventRecorder {
    let events: any EventRecorder

    func record(
        _ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String]
    ) async throws {
        await events.record(type, id: id, appID: appID, personID: personID, details: details)
    }
}

/// A transaction's events: the server's ``EventLog`` stores them on the transaction's connection, all in one
/// statement at the end of the body (``store()``; each statement is a trip to the database's thread); any other
/// recorder (a test's), or a backend without an event table in the transaction, hears them after the commit.
private final class EventsInTransaction: TransactionEventRecorder, Sendable {
    private let log: EventLog?
    private let table: (any EventStore)?
    private let state = LockedValue<(pending: [PendingEvent], queued: Bool)>(([], false))

    init(log: EventLog?, table: (any EventStore)?) {
        self.log = log
        self.table = table
    }

    func record(
        _ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String]
    ) async throws {
        let pending = PendingEvent(type: type, id: id, appID: appID, personID: personID, details: details)
        state.withLockedValue { $0.pending.append(pending) }
    }

    /// Stores the events recorded so far in the transaction, when the event log can.
    func store() async throws {
        guard let log, let table else { return }
        let pending = state.withLockedValue { state in
            defer { state.pending = [] }
            return state.pending
        }
        guard log.store != nil, !pending.isEmpty else { return }  // this server keeps no events
        let drafts = pending.map {
            log.draft(
                $0.type, id: $0.id ?? log.newID(), appID: $0.appID, personID: $0.personID,
                details: $0.details)
        }
        try await table.append(contentsOf: drafts.map { (event: $0.0, deliveries: $0.1) })
        if drafts.contains(where: { !$0.1.isEmpty }) { state.withLockedValue { $0.queued = true } }
    }

    /// The events recorded so far as the event log stores them; nil without an event log that stores events.
    func drafted() -> [(event: GatehouseEvent, deliveries: [EventDeliveryRecord])]? {
        guard let log, log.store != nil else { return nil }
        return state.withLockedValue { $0.pending }.map {
            let (event, deliveries) = log.draft(
                $0.type, id: $0.id ?? log.newID(), appID: $0.appID, personID: $0.personID, details: $0.details)
            return (event, deliveries)
        }
    }

    /// After the commit: wakes the sink worker for deliveries queued; hands what was not stored to the event log,
    /// in one append, or to any other recorder one by one.
    func committed(announcingTo events: any EventRecorder) async {
        let (later, queued) = state.withLockedValue { $0 }
        if queued { log?.doorbell.ring() }
        if let log { return await log.store(later) }
        for event in later {
            await events.record(
                event.type, id: event.id, appID: event.appID, personID: event.personID, details: event.details)
        }
    }
}

/// A backend without transactions: the body runs on the plain stores, each write committing by itself.
private struct PlainWrites: WriteTransactions {
    let storage: Storage

    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        try await body(
            TransactionStores(
                codes: storage.codes, tokens: storage.tokens, grants: storage.grants, admins: storage.admins))
    }
}

/// A transaction's token store that remembers the tokens it stored.
private struct StoredTokens: TokenStore {
    let base: any TokenStore
    let stored = LockedValue<[TokenRecord]>([])

    func insert(_ token: TokenRecord) async throws {
        try await base.insert(token)
        stored.withLockedValue { $0.append(token) }
    }
    func find(tokenHash: String) async throws -> TokenRecord? { try await base.find(tokenHash: tokenHash) }
    func setExpiry(id: String, expiresAt: Date?) async throws { try await base.setExpiry(id: id, expiresAt: expiresAt) }
    func revoke(id: String, at: Date) async throws -> [TokenRecord] { try await base.revoke(id: id, at: at) }
    func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(appID: appID, userID: userID, at: at)
    }
    func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(userID: userID, at: at)
    }
    func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(codeID: codeID, at: at)
    }
    func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        try await base.live(appID: appID, userID: userID, now: now)
    }
}
