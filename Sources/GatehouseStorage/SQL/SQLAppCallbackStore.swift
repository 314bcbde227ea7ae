import GatehouseCore
import Foundation
import SQLKit

/// `AppCallbackStore` over any `SQLDatabase`: table `app_callbacks`.
package struct SQLAppCallbackStore: AppCallbackStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = [
        "id", "app_id", "kind", "user_id", "url", "body", "attempts", "next_attempt_at", "created_at", "delivered_at",
        "gave_up_at", "last_error", "confirmation_code", "status_url",
    ]

    package func insert(_ callback: AppCallbackRecord) async throws {
        try await context.run {
            try await db.insert(into: "app_callbacks").columns(Self.columns).values(Self.values(callback)).run()
        }
    }

    package func find(id: String) async throws -> AppCallbackRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_callbacks").where("id", .equal, id).first().map(
                Self.decode)
        }
    }

    package func due(now: Date, limit: Int) async throws -> [AppCallbackRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_callbacks")
                .where("next_attempt_at", .lessThanOrEqual, SQLCodec.seconds(now))
                .orderBy("next_attempt_at").orderBy("seq").limit(limit)
                .all().map(Self.decode)
        }
    }

    package func claim(id: String, expectedNextAttemptAt: Date, leaseUntil: Date) async throws -> Bool {
        try await context.run {
            !(try await db.update("app_callbacks")
                .set("next_attempt_at", to: SQLCodec.seconds(leaseUntil))
                .where("id", .equal, id)
                .where("next_attempt_at", .equal, SQLCodec.seconds(expectedNextAttemptAt))
                .returning("id").all().isEmpty)
        }
    }

    package func update(_ callback: AppCallbackRecord) async throws {
        try await context.run {
            var update = db.update("app_callbacks")
            for (column, value) in zip(Self.columns, Self.values(callback)).dropFirst() {
                update = update.set(column, to: value)
            }
            guard !(try await update.where("id", .equal, callback.id).returning("id").all().isEmpty) else {
                throw StorageError.notFound
            }
        }
    }

    package func list(userID: String, kind: AppCallbackKind) async throws -> [AppCallbackRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_callbacks")
                .where("user_id", .equal, userID).where("kind", .equal, kind.rawValue)
                .orderBy("seq", .descending)
                .all().map(Self.decode)
        }
    }

    package static func values(_ c: AppCallbackRecord) -> [any Encodable & Sendable] {
        [
            c.id, c.appID, c.kind.rawValue, c.userID, c.url, c.body, Int64(c.attempts),
            SQLCodec.seconds(c.nextAttemptAt),
            SQLCodec.seconds(c.createdAt), SQLCodec.seconds(c.deliveredAt), SQLCodec.seconds(c.gaveUpAt), c.lastError,
            c.confirmationCode, c.statusURL,
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> AppCallbackRecord {
        let r = RowReader(row)
        return AppCallbackRecord(
            id: try r.string("id"), appID: try r.string("app_id"),
            kind: AppCallbackKind(rawValue: try r.string("kind")) ?? .deauthorize, userID: try r.string("user_id"),
            url: try r.string("url"), body: try r.string("body"),
            attempts: Int(try row.decode(column: "attempts", as: Int64.self)),
            nextAttemptAt: try r.optionalDate("next_attempt_at"), createdAt: try r.date("created_at"),
            deliveredAt: try r.optionalDate("delivered_at"), gaveUpAt: try r.optionalDate("gave_up_at"),
            lastError: try r.optionalString("last_error"), confirmationCode: try r.optionalString("confirmation_code"),
            statusURL: try r.optionalString("status_url"))
    }
}
