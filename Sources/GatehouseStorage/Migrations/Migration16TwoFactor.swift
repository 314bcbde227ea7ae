import GatehouseCore
import SQLKit

/// Migration 16 (issue 32): people's second factors (`two_factor`: the TOTP secret, sealed when a master key is
/// configured, and the last step used), their recovery codes (hashes only), and where each browser session was
/// last used (`session_activity`, for the person's "Where you're logged in").
package enum Migration16TwoFactor {
    package static let migration = SQLMigration(version: 16, name: "two-factor login and session activity") { db in
        let cascadeUser = SQLColumnConstraintAlgorithm.references("users", "id", onDelete: .cascade)
        let cascadeSession = SQLColumnConstraintAlgorithm.references("browser_sessions", "id", onDelete: .cascade)
        try await db.create(table: "two_factor").ifNotExists()
            .column("user_id", type: .text, .primaryKey(autoIncrement: false), .notNull, cascadeUser)
            .column("secret", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("confirmed_at", type: .bigint)
            .column("last_used_step", type: .bigint)
            .run()
        try await db.create(table: "two_factor_recovery_codes").ifNotExists()
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("code_hash", type: .text, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(
            db, "two_factor_recovery_codes_idx", on: "two_factor_recovery_codes", ["user_id", "code_hash"], unique: true
        )
        try await db.create(table: "session_activity").ifNotExists()
            .column("session_id", type: .text, .primaryKey(autoIncrement: false), .notNull, cascadeSession)
            .column("user_agent", type: .text)
            .column("ip", type: .text)
            .column("last_used_at", type: .bigint, .notNull)
            .run()
    }
}
