import GatehouseCore
import SQLKit

/// Migration 7: the persistent outbox of deauthorize and data-deletion callbacks.
package enum Migration07CallbackOutbox {
    package static let migration = SQLMigration(version: 7, name: "app callback outbox") { db in
        let cascadeApp = SQLColumnConstraintAlgorithm.references("apps", "id", onDelete: .cascade)
        try await db.create(table: "app_callbacks").ifNotExists()
            .outboxKey()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("kind", type: .text, .notNull)
            // No foreign key: a deletion request outlives the person's account on purpose.
            .column("user_id", type: .text, .notNull)
            .column("url", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .outboxDeliveryState()
            .column("confirmation_code", type: .text)
            .column("status_url", type: .text)
            .run()
        try await SQLSchemaTypes.createOutboxDueIndex(db, table: "app_callbacks")
        try await SQLSchemaTypes.createIndex(db, "app_callbacks_user_idx", on: "app_callbacks", ["user_id", "kind"])
    }
}
