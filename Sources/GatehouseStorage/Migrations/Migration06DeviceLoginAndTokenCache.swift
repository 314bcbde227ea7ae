import GatehouseCore
import SQLKit

/// Migration 6: device-login codes, the remote token cache and server key material.
package enum Migration06DeviceLoginAndTokenCache {
    package static let migration = SQLMigration(version: 6, name: "device login, remote token cache, server keys") {
        db in
        let cascadeApp = SQLColumnConstraintAlgorithm.references("apps", "id", onDelete: .cascade)
        let cascadeUser = SQLColumnConstraintAlgorithm.references("users", "id", onDelete: .cascade)

        try await db.create(table: "device_codes").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("code_hash", type: .text, .notNull, .unique)
            .column("user_code", type: .text, .notNull)
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("scopes", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("poll_interval", type: .bigint, .notNull)
            .column("last_polled_at", type: .bigint)
            .column("status", type: .text, .notNull)
            .column("user_id", type: .text, cascadeUser)
            .column("decided_at", type: .bigint)
            .run()
        try await SQLSchemaTypes.createIndex(db, "device_codes_user_code_idx", on: "device_codes", ["user_code"])

        // Slots are addressed by an HMAC of the app's session secret; the data is AES-GCM sealed.
        try await db.create(table: "token_cache_slots").ifNotExists()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("slot", type: .text, .notNull)
            .column("sealed", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .primaryKey("app_id", "slot")
            .run()

        try await db.create(table: "server_keys").ifNotExists()
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("key_base64", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
    }
}
