import GatehouseCore
import SQLKit

/// Migration 15 (issue 32): the mail outbox and the single-use codes its messages carry.
package enum Migration15AccountMail {
    package static let migration = SQLMigration(version: 15, name: "mail outbox and account codes") { db in
        try await db.create(table: "mail_messages").ifNotExists()
            .outboxKey()
            .column("kind", type: .text, .notNull)
            // No foreign key: the outbox keeps a record of what was sent after the account is gone.
            .column("user_id", type: .text)
            .column("to_address", type: .text, .notNull)
            .column("subject", type: .text, .notNull)
            .column("text_body", type: .text, .notNull)
            .column("html_body", type: .text, .notNull)
            .outboxDeliveryState()
            .run()
        try await SQLSchemaTypes.createOutboxDueIndex(db, table: "mail_messages")
        try await db.create(table: "account_codes").ifNotExists()
            // SHA-256 of the code, hex: the code itself is only ever in the mail.
            .column("code_hash", type: .text, .primaryKey(autoIncrement: false), .notNull)
            .column("purpose", type: .text, .notNull)
            .column("user_id", type: .text, .references("users", "id", onDelete: .cascade))
            .column("email", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .run()
        try await SQLSchemaTypes.createIndex(db, "account_codes_user_idx", on: "account_codes", ["user_id", "purpose"])
    }
}
