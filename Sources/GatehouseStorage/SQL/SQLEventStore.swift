import Foundation
import GatehouseCore
import GatehouseProtocol
import SQLKit

/// ``EventStore`` over any `SQLDatabase`: table `events` (migration 19), written once for SQLite and PostgreSQL.
/// An event's sink deliveries go to `event_deliveries` (``SQLEventDeliveryStore``) right after the event row.
package struct SQLEventStore: EventStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }
    static let columns = ["seq", "id", "type", "time", "app_id", "person_id", "node", "details"]

    /// PostgreSQL advisory lock that event inserts take in turn ("GHEVENTS"; any constant does).
    package static let appendLockKey: Int64 = 0x4748_4556_454E_5453

    /// The sequence number is taken and committed in turn, so a reader that sees an event sees every event with a
    /// lower number, and a follower's cursor never passes one that commits late.
    ///
    /// On PostgreSQL the insert takes a transaction-scoped advisory lock before `seq`'s `nextval`, in the same
    /// statement: a second insert waits until the first has committed (PostgreSQL makes a commit visible before it
    /// releases its locks), so numbers become visible in their order. Without it, an insert that drew 41 could
    /// commit after one that drew 42, and a reader that had seen 42 would never list 41. The lock is held for one
    /// single-row insert and its commit; it is per database (other databases on the cluster do not wait).
    /// SQLite needs no lock: it has one writer at a time, so a number is committed before the next is drawn.
    /// On SQLite one multi-row insert for the events and one for their deliveries; on PostgreSQL one statement too,
    /// one turn under the advisory lock for them all.
    package func append(
        contentsOf events: [(event: GatehouseEvent, deliveries: [EventDeliveryRecord])]
    ) async throws {
        guard !events.isEmpty else { return }
        if db.dialect.name == "postgresql" {
            if events.count == 1 {
                _ = try await append(events[0].event, deliveries: events[0].deliveries)
                return
            }
            return try await appendUnderTheLock(events)
        }
        let rows = events.map { event, _ in
            [
                event.id, event.type.rawValue, SQLCodec.seconds(event.time), event.appID, event.personID, event.node,
                Self.detailsText(event),
            ] as [any Encodable & Sendable]
        }
        try await context.run {
            var insert = db.insert(into: "events").columns(Self.insertedColumns)
            for row in rows { insert = insert.values(row) }
            insert = insert.ignoringConflicts(with: ["id"])
            let deliveries = events.flatMap(\.deliveries)
            guard !deliveries.isEmpty else { return try await insert.run() }
            // Only the events stored now get their deliveries (a skipped one's are stored already, or never were).
            let stored = Set(try await insert.returning("id").all(decodingColumn: "id", as: String.self))
            try await insertDeliveries(deliveries.filter { stored.contains($0.eventID) })
        }
    }

    /// PostgreSQL: the events in one statement, one turn under the advisory lock; their numbers follow their order
    /// (`WITH ORDINALITY`). Then the deliveries of those stored.
    private func appendUnderTheLock(_ events: [(event: GatehouseEvent, deliveries: [EventDeliveryRecord])])
        async throws
    {
        try await context.run {
            let stored = try await db.raw(
                """
                WITH turn AS (\(Self.takeTheLock)) \
                \(Self.insertUnderTheLock(Self.lockedInsertValues(events.map(\.event)), after: "turn"))
                """
            ).all(decodingColumn: "id", as: String.self)
            let kept = Set(stored)
            try await insertDeliveries(events.flatMap(\.deliveries).filter { kept.contains($0.eventID) })
        }
    }

    /// PostgreSQL: the statement that takes the events' advisory lock (until the transaction ends).
    package static var takeTheLock: SQLQueryString { "SELECT pg_advisory_xact_lock(\(bind: appendLockKey))" }

    /// PostgreSQL: `INSERT INTO events … RETURNING id` for the events whose ``lockedInsertValues(_:)`` are
    /// `values`, in their order, reading a row of `source` (a `WITH` name whose query took ``takeTheLock``) before
    /// any draws its number. No row in `source`: no events. Each value is cast to its column's type, so the text
    /// can also be prepared (PostgreSQL would read an untyped value in `VALUES` as text).
    package static func insertUnderTheLock(_ values: [any Encodable & Sendable], after source: String)
        -> SQLQueryString
    {
        var rows: [SQLQueryString] = []
        for start in stride(from: 0, to: values.count, by: lockedInsertColumns) {
            let v = values[start..<start + lockedInsertColumns].map { $0 }
            rows.append(
                """
                (CAST(\(bind: v[0]) AS BIGINT), CAST(\(bind: v[1]) AS TEXT), CAST(\(bind: v[2]) AS TEXT), \
                CAST(\(bind: v[3]) AS BIGINT), CAST(\(bind: v[4]) AS TEXT), CAST(\(bind: v[5]) AS TEXT), \
                CAST(\(bind: v[6]) AS TEXT), CAST(\(bind: v[7]) AS TEXT))
                """)
        }
        return """
            INSERT INTO events (id, type, time, app_id, person_id, node, details) \
            SELECT v.id, v.type, v.time, v.app_id, v.person_id, v.node, v.details \
            FROM \(ident: source), (VALUES \(SQLList(rows, separator: SQLRaw(", ")))) \
            AS v(n, id, type, time, app_id, person_id, node, details) ORDER BY v.n \
            ON CONFLICT (id) DO NOTHING RETURNING id
            """
    }

    /// Values per event in ``insertUnderTheLock(_:after:)``: its place, then the inserted columns.
    package static let lockedInsertColumns = 8

    /// The events' values for ``insertUnderTheLock(_:after:)``, in order.
    package static func lockedInsertValues(_ events: [GatehouseEvent]) -> [any Encodable & Sendable] {
        events.enumerated().flatMap { index, event -> [any Encodable & Sendable] in
            [
                Int64(index), event.id, event.type.rawValue, SQLCodec.seconds(event.time), event.appID, event.personID,
                event.node, detailsText(event),
            ]
        }
    }

    private func insertDeliveries(_ deliveries: [EventDeliveryRecord]) async throws {
        guard !deliveries.isEmpty else { return }
        var insert = db.insert(into: SQLEventDeliveryStore.table).columns(SQLEventDeliveryStore.columns)
        for delivery in deliveries { insert = insert.values(SQLEventDeliveryStore.values(delivery)) }
        try await insert.run()
    }

    /// The columns an insert names (`seq` is the database's).
    static let insertedColumns = ["id", "type", "time", "app_id", "person_id", "node", "details"]

    /// The details as stored: JSON, keys sorted, so the same details are the same text. Written by the project's
    /// JSON writer, not `JSONEncoder` (under perf, its setup was a tenth of storing a code exchange's events).
    static func detailsText(_ event: GatehouseEvent) -> String {
        let members = event.details.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }
        return JSONValue.object(JSONObject(members)).serialized()
    }

    package func append(_ event: GatehouseEvent, deliveries: [EventDeliveryRecord]) async throws -> GatehouseEvent? {
        let details = Self.detailsText(event)
        return try await context.run {
            // A second event with the same id (two nodes sweeping the same expired token) is dropped here.
            let inserted: (any SQLRow)?
            if db.dialect.name == "postgresql" {
                inserted = try await db.raw(
                    """
                    WITH turn AS (SELECT pg_advisory_xact_lock(\(bind: Self.appendLockKey))) \
                    INSERT INTO events (id, type, time, app_id, person_id, node, details) \
                    SELECT \(bind: event.id), \(bind: event.type.rawValue), \(bind: SQLCodec.seconds(event.time)), \
                    \(bind: event.appID), \(bind: event.personID), \(bind: event.node), \(bind: details) FROM turn \
                    ON CONFLICT (id) DO NOTHING RETURNING seq
                    """
                ).first()
            } else {
                inserted = try await db.insert(into: "events").columns(Self.insertedColumns)
                    .values(
                        event.id, event.type.rawValue, SQLCodec.seconds(event.time), event.appID, event.personID,
                        event.node, details
                    )
                    .ignoringConflicts(with: ["id"]).returning("seq").first()
            }
            guard let row = inserted else { return nil }
            var stored = event
            stored.sequence = try row.decode(column: "seq", as: Int64.self)
            try await insertDeliveries(deliveries)
            return stored
        }
    }

    package func list(_ query: EventQuery) async throws -> [GatehouseEvent] {
        try await context.run {
            var select = db.select().columns(Self.columns).from("events")
            if let after = query.after { select = select.where("seq", .greaterThan, after) }
            if !query.types.isEmpty { select = select.where("type", .in, query.types.map(\.rawValue)) }
            if let app = query.appID { select = select.where("app_id", .equal, app) }
            if let person = query.personID { select = select.where("person_id", .equal, person) }
            if let since = query.since { select = select.where("time", .greaterThanOrEqual, SQLCodec.seconds(since)) }
            if let until = query.until { select = select.where("time", .lessThan, SQLCodec.seconds(until)) }
            return try await select.orderBy("seq").limit(max(0, query.limit)).all().map(Self.decode)
        }
    }

    package func latestSequence() async throws -> Int64 {
        try await context.run {
            let row = try await db.select().column("seq").from("events").orderBy("seq", .descending).limit(1).first()
            return try row?.decode(column: "seq", as: Int64.self) ?? 0
        }
    }

    @discardableResult
    package func prune(olderThan cutoff: Date, keepingAtMost maximumRows: Int) async throws -> Int {
        try await context.run {
            let old = try await db.delete(from: "events").where("time", .lessThan, SQLCodec.seconds(cutoff))
                .returning("seq").all().count
            let boundary = try await db.select().column("seq").from("events").orderBy("seq", .descending)
                .offset(max(0, maximumRows)).limit(1).first()
            var extra = 0
            if let boundary, let seq = try? boundary.decode(column: "seq", as: Int64.self) {
                extra = try await db.delete(from: "events").where("seq", .lessThanOrEqual, seq).returning("seq").all()
                    .count
            }
            // Deliveries finished (delivered or given up) before the cutoff go with them.
            try await db.delete(from: SQLEventDeliveryStore.table).where("next_attempt_at", .is, SQLLiteral.null)
                .where("created_at", .lessThan, SQLCodec.seconds(cutoff)).run()
            return old + extra
        }
    }

    package func tokensExpired(after from: Date, upTo to: Date, limit: Int) async throws -> [TokenRecord] {
        try await context.run {
            try await db.select().columns(SQLTokenStore.columns).from("tokens")
                .where("kind", .equal, TokenKind.user.rawValue)
                .where("expires_at", .greaterThan, SQLCodec.seconds(from))
                .where("expires_at", .lessThanOrEqual, SQLCodec.seconds(to))
                .where("revoked_at", .is, SQLLiteral.null)
                .orderBy("expires_at").limit(limit).all().map(SQLTokenStore.decode)
        }
    }

    static func decode(_ row: any SQLRow) throws -> GatehouseEvent {
        let r = RowReader(row)
        let details =
            (try? JSONDecoder().decode([String: String].self, from: Data(try r.string("details").utf8))) ?? [:]
        guard let type = EventType(rawValue: try r.string("type")) else {
            throw StorageError.unavailable("stored event has an unknown type")
        }
        return GatehouseEvent(
            sequence: try row.decode(column: "seq", as: Int64.self), id: try r.string("id"), type: type,
            time: try r.date("time"), appID: try r.optionalString("app_id"),
            personID: try r.optionalString("person_id"), node: try r.string("node"), details: details)
    }
}

/// The `event_deliveries` outbox (migration 19): insert, find, due, claim and update are ``SQLOutboxTable``'s.
package struct SQLEventDeliveryStore: EventDeliveryStore, SQLOutboxTable {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    package static let table = "event_deliveries"
    package static let columns = [
        "id", "event_id", "sink", "body", "attempts", "next_attempt_at", "created_at", "delivered_at", "gave_up_at",
        "last_error",
    ]

    package func deliveries(eventID: String) async throws -> [EventDeliveryRecord] {
        try await context.run {
            try await context.db.select().columns(Self.columns).from(Self.table).where("event_id", .equal, eventID)
                .orderBy("sink").all().map(Self.decode)
        }
    }

    package static func values(_ d: EventDeliveryRecord) -> [any Encodable & Sendable] {
        [
            d.id, d.eventID, d.sink, d.body, Int64(d.attempts), SQLCodec.seconds(d.nextAttemptAt),
            SQLCodec.seconds(d.createdAt), SQLCodec.seconds(d.deliveredAt), SQLCodec.seconds(d.gaveUpAt), d.lastError,
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> EventDeliveryRecord {
        let r = RowReader(row)
        return EventDeliveryRecord(
            eventID: try r.string("event_id"), sink: try r.string("sink"), body: try r.string("body"),
            attempts: Int(try row.decode(column: "attempts", as: Int64.self)),
            nextAttemptAt: try r.optionalDate("next_attempt_at"), createdAt: try r.date("created_at"),
            deliveredAt: try r.optionalDate("delivered_at"), gaveUpAt: try r.optionalDate("gave_up_at"),
            lastError: try r.optionalString("last_error"))
    }
}
