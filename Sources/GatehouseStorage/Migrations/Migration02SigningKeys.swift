import GatehouseCore
import SQLKit

/// Migration 2: id_token signing keys (Limited Login / OpenID Connect).
package enum Migration02SigningKeys {
    package static let migration = SQLMigration(version: 2, name: "signing keys") { db in
        try await db.create(table: "signing_keys").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("kid", type: .text, .notNull, .unique)
            .column("private_key_pem", type: .text, .notNull)
            .column("certificate_pem", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("retired_at", type: .bigint)
            .column("publish_until", type: .bigint)
            .run()
    }
}
