import GatehouseCore
import SQLKit

/// Migration 21 (issue 42): apps' Webhooks subscriptions, and the outbox of their notifications (one row per
/// batch POST, delivered by the generic outbox like mail and app callbacks).
package enum Migration21Webhooks {
    package static let migration = SQLMigration(version: 21, name: "webhooks") { db in
        let cascadeApp = SQLColumnConstraintAlgorithm.references("apps", "id", onDelete: .cascade)
        try await db.create(table: "webhook_subscriptions").ifNotExists()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("object", type: .text, .notNull)
            .column("callback_url", type: .text, .notNull)
            .column("verify_token", type: .text, .notNull)
            // JSON: [{"name": "email", "version": "v21.0"}, …]
            .column("fields", type: .text, .notNull)
            .column("active", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .primaryKey("app_id", "object")
            .run()
        try await db.create(table: "webhook_deliveries").ifNotExists()
            .outboxKey()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("object", type: .text, .notNull)
            .column("url", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .column("revision", type: .bigint, .notNull)
            .column("batch_until", type: .bigint, .notNull)
            .outboxDeliveryState()
            .column("last_status", type: .bigint)
            .column("last_answer", type: .text)
            .column("signature", type: .text)
            .run()
        try await SQLSchemaTypes.createOutboxDueIndex(db, table: "webhook_deliveries")
        try await SQLSchemaTypes.createIndex(
            db, "webhook_deliveries_app_idx", on: "webhook_deliveries", ["app_id", "object", "batch_until"])
    }
}
