import GatehouseCore
import SQLKit

/// Migration 18 (issue 32): what is left of deleted accounts, so their old tokens answer as Facebook answers a
/// deleted person's token (``DeletedAccountRecord``). No foreign key: the person is gone.
package enum Migration18DeletedAccounts {
    package static let migration = SQLMigration(version: 18, name: "deleted accounts") { db in
        try await db.create(table: "deleted_accounts").ifNotExists()
            // `token:` + SHA-256 of a token, or `email:` + SHA-256 of the address: never the secret or the address.
            .column("key", type: .text, .primaryKey(autoIncrement: false), .notNull)
            .column("app_id", type: .text)
            .column("deleted_at", type: .bigint, .notNull)
            .column("forget_at", type: .bigint, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "deleted_accounts_forget_idx", on: "deleted_accounts", ["forget_at"])
    }
}
