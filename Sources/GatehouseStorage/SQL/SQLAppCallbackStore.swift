import GatehouseCore
import Foundation
import SQLKit

/// `AppCallbackStore` over any `SQLDatabase`: table `app_callbacks` (migration 7). Insert, find, due, claim and
/// update are ``SQLOutboxTable``'s.
package struct SQLAppCallbackStore: AppCallbackStore, SQLOutboxTable {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let table = "app_callbacks"
    package static let columns = [
        "id", "app_id", "kind", "user_id", "url", "body", "attempts", "next_attempt_at", "created_at", "delivered_at",
        "gave_up_at", "last_error", "confirmation_code", "status_url",
    ]

    package func list(userID: String, kind: AppCallbackKind) async throws -> [AppCallbackRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from(Self.table)
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
