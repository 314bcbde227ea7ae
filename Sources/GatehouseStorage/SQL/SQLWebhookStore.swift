import Foundation
import GatehouseCore
import GatehouseProtocol
import SQLKit

/// `WebhookStore` over any `SQLDatabase`: tables `webhook_subscriptions` and `webhook_deliveries` (migration 21).
/// The outbox's insert, find, due, claim and update are ``SQLOutboxTable``'s.
package struct SQLWebhookStore: WebhookStore, SQLOutboxTable {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let table = "webhook_deliveries"
    package static let columns = [
        "id", "app_id", "object", "url", "body", "revision", "batch_until", "attempts", "next_attempt_at",
        "created_at", "delivered_at", "gave_up_at", "last_error", "last_status", "last_answer", "signature",
    ]
    static let subscriptionColumns = [
        "app_id", "object", "callback_url", "verify_token", "fields", "active", "created_at", "updated_at",
    ]

    package func subscriptions(appID: String) async throws -> [WebhookSubscriptionRecord] {
        try await context.run {
            try await db.select().columns(Self.subscriptionColumns).from("webhook_subscriptions")
                .where("app_id", .equal, appID).orderBy("object").all().map(Self.decodeSubscription)
        }
    }

    /// A subscription's row, in ``subscriptionColumns`` order (also written by a state import).
    static func subscriptionValues(_ s: WebhookSubscriptionRecord) throws -> [any Encodable & Sendable] {
        let fields = String(decoding: try JSONEncoder().encode(s.fields), as: UTF8.self)
        return [
            s.appID, s.object.rawValue, s.callbackURL, s.verifyToken, fields, Int64(s.active ? 1 : 0),
            SQLCodec.seconds(s.createdAt), SQLCodec.seconds(s.updatedAt),
        ]
    }

    package func saveSubscription(_ s: WebhookSubscriptionRecord) async throws {
        let values = try Self.subscriptionValues(s)
        try await context.run {
            try await db.insert(into: "webhook_subscriptions").columns(Self.subscriptionColumns).values(values)
                .onConflict(with: ["app_id", "object"]) { update in
                    for column in Self.subscriptionColumns.dropFirst(2) where column != "created_at" {
                        update.set(excludedValueOf: column)
                    }
                    return update
                }
                .run()
        }
    }

    package func deleteSubscription(appID: String, object: WebhookObject) async throws -> Bool {
        try await context.run {
            !(try await db.delete(from: "webhook_subscriptions").where("app_id", .equal, appID)
                .where("object", .equal, object.rawValue).returning("app_id").all().isEmpty)
        }
    }

    package func openBatch(appID: String, object: WebhookObject) async throws -> WebhookDeliveryRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from(Self.table)
                .where("app_id", .equal, appID).where("object", .equal, object.rawValue)
                .where("attempts", .equal, Int64(0))
                .where(SQLColumn("next_attempt_at"), .equal, SQLColumn("batch_until"))
                .orderBy("seq", .descending).limit(1)
                .first().map(Self.decode)
        }
    }

    /// One compare-and-set: the revision guards against another writer, `next_attempt_at = batch_until` against a
    /// worker's claim (which moves the due time to its lease).
    package func grow(id: String, revision: Int, batchUntil: Date, body: String) async throws -> Bool {
        try await context.run {
            !(try await db.update(Self.table)
                .set("body", to: body).set("revision", to: Int64(revision + 1))
                .where("id", .equal, id).where("revision", .equal, Int64(revision))
                .where("attempts", .equal, Int64(0))
                .where("next_attempt_at", .equal, SQLCodec.seconds(batchUntil))
                .returning("id").all().isEmpty)
        }
    }

    package func deliveries(appID: String, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from(Self.table).where("app_id", .equal, appID)
                .orderBy("seq", .descending).limit(limit).all().map(Self.decode)
        }
    }

    package static func values(_ d: WebhookDeliveryRecord) -> [any Encodable & Sendable] {
        [
            d.id, d.appID, d.object.rawValue, d.url, d.body, Int64(d.revision), SQLCodec.seconds(d.batchUntil),
            Int64(d.attempts), SQLCodec.seconds(d.nextAttemptAt), SQLCodec.seconds(d.createdAt),
            SQLCodec.seconds(d.deliveredAt), SQLCodec.seconds(d.gaveUpAt), d.lastError, d.lastStatus.map(Int64.init),
            d.lastAnswer, d.signature,
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> WebhookDeliveryRecord {
        let r = RowReader(row)
        return WebhookDeliveryRecord(
            id: try r.string("id"), appID: try r.string("app_id"),
            object: WebhookObject(rawValue: try r.string("object")) ?? .user, url: try r.string("url"),
            body: try r.string("body"), revision: Int(try row.decode(column: "revision", as: Int64.self)),
            batchUntil: try r.date("batch_until"), attempts: Int(try row.decode(column: "attempts", as: Int64.self)),
            nextAttemptAt: try r.optionalDate("next_attempt_at"), createdAt: try r.date("created_at"),
            deliveredAt: try r.optionalDate("delivered_at"), gaveUpAt: try r.optionalDate("gave_up_at"),
            lastError: try r.optionalString("last_error"),
            lastStatus: try row.decode(column: "last_status", as: Int64?.self).map(Int.init),
            lastAnswer: try r.optionalString("last_answer"), signature: try r.optionalString("signature"))
    }

    static func decodeSubscription(_ row: any SQLRow) throws -> WebhookSubscriptionRecord {
        let r = RowReader(row)
        let fields = try JSONDecoder().decode([WebhookField].self, from: Data(try r.string("fields").utf8))
        return WebhookSubscriptionRecord(
            appID: try r.string("app_id"), object: WebhookObject(rawValue: try r.string("object")) ?? .user,
            callbackURL: try r.string("callback_url"), verifyToken: try r.string("verify_token"), fields: fields,
            active: try row.decode(column: "active", as: Int64.self) != 0, createdAt: try r.date("created_at"),
            updatedAt: try r.date("updated_at"))
    }
}
