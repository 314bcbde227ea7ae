import GatehouseCore
import SQLKit

/// Migration 1: every table of the first release.
///
/// Choices shared by all tables:
/// - Dates are whole unix seconds in `BIGINT` columns (SQLite maps them to `INTEGER`).
/// - Lists of strings (redirect URIs, permissions, scopes) are JSON arrays in `TEXT` columns, so every
///   state change stays a single statement.
/// - Tables listed "oldest first" / "newest first" carry a `seq` auto-increment key as the insertion-order
///   tie-breaker (an `INTEGER PRIMARY KEY` rowid alias in SQLite, an identity column in PostgreSQL); their
///   string `id` is `UNIQUE`.
/// - Rows that belong to a person reference `users(id)` with `ON DELETE CASCADE`.
package enum Migration01InitialSchema {
    package static let migration = SQLMigration(version: 1, name: "initial schema") { db in
        let blob = SQLSchemaTypes.blob(for: db)
        let bool = SQLSchemaTypes.boolean
        let cascadeApp = SQLColumnConstraintAlgorithm.references("apps", "id", onDelete: .cascade)
        let cascadeUser = SQLColumnConstraintAlgorithm.references("users", "id", onDelete: .cascade)

        try await db.create(table: "apps").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("secret", type: .text, .notNull)
            .column("client_token", type: .text, .notNull)
            .column("name", type: .text, .notNull)
            .column("redirect_uris", type: .text, .notNull)
            .column("require_app_secret", type: bool, .notNull)
            .column("approved_permissions", type: .text, .notNull)
            .column("deauthorize_callback_url", type: .text)
            .column("data_deletion_callback_url", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "users").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("email", type: .text, .notNull)
            .column("email_key", type: .text, .notNull)
            .column("password_hash", type: .text, .notNull)
            .column("first_name", type: .text, .notNull)
            .column("middle_name", type: .text)
            .column("last_name", type: .text, .notNull)
            .column("birthday", type: .text)
            .column("gender", type: .text)
            .column("link", type: .text)
            .column("location_id", type: .text)
            .column("location_name", type: .text)
            .column("hometown_id", type: .text)
            .column("hometown_name", type: .text)
            .column("picture", type: blob)
            .column("test_user_of_app_id", type: .text, cascadeApp)
            .column("password_changed_at", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "users_email_key_idx", on: "users", ["email_key"], unique: true)
        try await SQLSchemaTypes.createIndex(db, "users_test_app_idx", on: "users", ["test_user_of_app_id"])

        try await db.create(table: "app_roles").ifNotExists()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("role", type: .text, .notNull)
            .primaryKey("app_id", "user_id")
            .run()
        try await SQLSchemaTypes.createIndex(db, "app_roles_user_idx", on: "app_roles", ["user_id"])

        try await db.create(table: "app_scoped_ids").ifNotExists()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("scoped_id", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("app_id", "user_id")
            .unique("app_id", "scoped_id")
            .run()
        try await SQLSchemaTypes.createIndex(db, "app_scoped_ids_user_idx", on: "app_scoped_ids", ["user_id"])

        // One row per pair, stored as (smaller id, larger id).
        try await db.create(table: "friendships").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("user_low", type: .text, .notNull, cascadeUser)
            .column("user_high", type: .text, .notNull, cascadeUser)
            .column("created_at", type: .bigint, .notNull)
            .unique("user_low", "user_high")
            .run()
        try await SQLSchemaTypes.createIndex(db, "friendships_high_idx", on: "friendships", ["user_high"])

        try await db.create(table: "grants").ifNotExists()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("granted", type: .text, .notNull)
            .column("declined", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("last_login_at", type: .bigint, .notNull)
            .primaryKey("app_id", "user_id")
            .run()
        try await SQLSchemaTypes.createIndex(db, "grants_user_idx", on: "grants", ["user_id"])

        try await db.create(table: "auth_codes").ifNotExists()
            .column("id", type: .text, .primaryKey(autoIncrement: false), .notNull)
            .column("code_hash", type: .text, .notNull, .unique)
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("redirect_uri", type: .text, .notNull)
            .column("code_challenge", type: .text)
            .column("code_challenge_method", type: .text)
            .column("nonce", type: .text)
            .column("auth_type", type: .text)
            .column("auth_nonce", type: .text)
            .column("scopes", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .run()
        try await SQLSchemaTypes.createIndex(db, "auth_codes_user_idx", on: "auth_codes", ["user_id"])

        // code_id has no foreign key: codes may be purged while the tokens minted from them live on.
        try await db.create(table: "tokens").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("token_hash", type: .text, .notNull, .unique)
            .column("kind", type: .text, .notNull)
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("user_id", type: .text, cascadeUser)
            .column("issued_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint)
            .column("revoked_at", type: .bigint)
            .column("code_id", type: .text)
            .column("auth_type", type: .text)
            .column("auth_nonce", type: .text)
            .column("origin", type: .text)
            .run()
        try await SQLSchemaTypes.createIndex(db, "tokens_app_user_idx", on: "tokens", ["app_id", "user_id"])
        try await SQLSchemaTypes.createIndex(db, "tokens_user_idx", on: "tokens", ["user_id"])
        try await SQLSchemaTypes.createIndex(db, "tokens_code_idx", on: "tokens", ["code_id"])

        try await db.create(table: "browser_sessions").ifNotExists()
            .column("id", type: .text, .primaryKey(autoIncrement: false), .notNull)
            .column("secret_hash", type: .text, .notNull, .unique)
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("authenticated_at", type: .bigint, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "browser_sessions_user_idx", on: "browser_sessions", ["user_id"])
    }
}
