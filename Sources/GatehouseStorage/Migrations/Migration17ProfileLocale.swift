import GatehouseCore
import SQLKit

/// Migration 17: the profile's `locale` ("en_US"), nil until set.
package enum Migration17ProfileLocale {
    package static let migration = SQLMigration(version: 17, name: "profile locale") { db in
        // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
        if db.dialect.name == "postgresql" {
            try await db.raw("ALTER TABLE users ADD COLUMN IF NOT EXISTS locale TEXT").run()
        } else {
            let columns = try await db.raw("PRAGMA table_info(users)").all().map {
                try $0.decode(column: "name", as: String.self)
            }
            if !columns.contains("locale") {
                try await db.alter(table: "users").column("locale", type: .text).run()
            }
        }
    }
}
