import Foundation
import GatehouseCore
import SQLKit

/// An outbox kept in one SQL table: the table's name and its row codec are all a store states; insert, find,
/// due, claim and update are written once here for every outbox (mail, app callbacks, event and webhook
/// deliveries), whose shared columns the migrations make with `outboxKey()` and `outboxDeliveryState()`.
///
/// The table has an `id` primary key, a `next_attempt_at` column of unix seconds (NULL once delivered or given
/// up) and an increasing `seq`, which orders rows due in the same second by when they were queued.
package protocol SQLOutboxTable: OutboxStore {
    /// The table's name.
    static var table: String { get }
    /// Every column a row codes, `id` first.
    static var columns: [String] { get }
    /// The column values of `item`, in the order of ``columns``.
    static func values(_ item: Item) -> [any Encodable & Sendable]
    static func decode(_ row: any SQLRow) throws -> Item
    var context: SQLStoreContext { get }
}

extension SQLOutboxTable {
    package func insert(_ item: Item) async throws {
        try await context.run {
            try await context.db.insert(into: Self.table).columns(Self.columns).values(Self.values(item)).run()
        }
    }

    package func find(id: String) async throws -> Item? {
        try await context.run {
            try await context.db.select().columns(Self.columns).from(Self.table).where("id", .equal, id).first()
                .map(Self.decode)
        }
    }

    package func due(now: Date, limit: Int) async throws -> [Item] {
        try await context.run {
            try await context.db.select().columns(Self.columns).from(Self.table)
                .where("next_attempt_at", .lessThanOrEqual, SQLCodec.seconds(now))
                .orderBy("next_attempt_at").orderBy("seq").limit(limit)
                .all().map(Self.decode)
        }
    }

    /// One `UPDATE … WHERE next_attempt_at = expected`: of two workers that read the same due row, the database
    /// lets one move it.
    package func claim(id: String, expectedNextAttemptAt: Date, leaseUntil: Date) async throws -> Bool {
        try await context.run {
            !(try await context.db.update(Self.table)
                .set("next_attempt_at", to: SQLCodec.seconds(leaseUntil))
                .where("id", .equal, id)
                .where("next_attempt_at", .equal, SQLCodec.seconds(expectedNextAttemptAt))
                .returning("id").all().isEmpty)
        }
    }

    package func update(_ item: Item) async throws {
        try await context.run {
            var update = context.db.update(Self.table)
            for (column, value) in zip(Self.columns, Self.values(item)).dropFirst() {
                update = update.set(column, to: value)
            }
            guard !(try await update.where("id", .equal, item.id).returning("id").all().isEmpty) else {
                throw StorageError.notFound
            }
        }
    }
}
