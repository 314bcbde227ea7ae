import GatehouseCore
import SQLKit

/// Migration 11 (issue 28): admin API tokens (only their SHA-256 is kept) and the audit log of changes made
/// through the admin API and the console.
package enum Migration11AdminTokensAndAudit {
    package static let migration = SQLMigration(version: 11, name: "admin tokens and audit log") { db in
        try await db.create(table: "admin_tokens").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("name", type: .text, .notNull)
            .column("display_prefix", type: .text, .notNull)
            .column("token_hash", type: .text, .notNull, .unique)
            .column("read_only", type: SQLSchemaTypes.boolean, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("revoked_at", type: .bigint)
            .run()

        try await db.create(table: "admin_audit").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("time", type: .bigint, .notNull)
            .column("actor_kind", type: .text, .notNull)
            .column("actor_id", type: .text)
            .column("actor_name", type: .text)
            .column("method", type: .text, .notNull)
            .column("route", type: .text, .notNull)
            .column("target", type: .text)
            .column("status", type: .bigint, .notNull)
            .run()
    }
}
