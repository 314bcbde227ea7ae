import GatehouseCore
import SQLKit

/// Migration 4 (operations): console administrators, their sessions, and shared rate-limit counters.
package enum Migration04AdminAccountsAndRateLimits {
    package static let migration = SQLMigration(version: 4, name: "admin accounts and rate limits") { db in
        try await db.create(table: "admin_accounts").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("email", type: .text, .notNull)
            .column("email_key", type: .text, .notNull, .unique)
            .column("password_hash", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "admin_sessions").ifNotExists()
            .column("id", type: .text, .primaryKey(autoIncrement: false), .notNull)
            .column("secret_hash", type: .text, .notNull, .unique)
            .column("admin_id", type: .text, .notNull, .references("admin_accounts", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "admin_sessions_admin_idx", on: "admin_sessions", ["admin_id"])

        try await db.create(table: "rate_limits").ifNotExists()
            .column("key", type: .text, .notNull)
            .column("window_start", type: .bigint, .notNull)
            .column("count", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .primaryKey("key", "window_start")
            .run()
        try await SQLSchemaTypes.createIndex(db, "rate_limits_expiry_idx", on: "rate_limits", ["expires_at"])
    }
}
