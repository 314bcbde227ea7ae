import GatehouseCore
import SQLKit

/// Migration 12: the person's account state (`AccountState`: active, checkpointed, unconfirmed, disabled,
/// logged-out), `active` for everyone who exists.
package enum Migration12AccountStates {
    package static let migration = SQLMigration(version: 12, name: "account states") { db in
        // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
        if db.dialect.name == "postgresql" {
            try await db.raw("ALTER TABLE users ADD COLUMN IF NOT EXISTS account_state TEXT NOT NULL DEFAULT 'active'")
                .run()
        } else {
            let columns = try await db.raw("PRAGMA table_info(users)").all().map {
                try $0.decode(column: "name", as: String.self)
            }
            if !columns.contains("account_state") {
                try await db.raw("ALTER TABLE users ADD COLUMN account_state TEXT NOT NULL DEFAULT 'active'").run()
            }
        }
    }
}
