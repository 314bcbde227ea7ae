import GatehouseCore
import SQLKit

/// Migration 8: the profile's `quotes`, empty until set in the console.
package enum Migration08ProfileQuotes {
    package static let migration = SQLMigration(version: 8, name: "profile quotes") { db in
        // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
        if db.dialect.name == "postgresql" {
            try await db.raw("ALTER TABLE users ADD COLUMN IF NOT EXISTS quotes TEXT").run()
        } else {
            let columns = try await db.raw("PRAGMA table_info(users)").all().map {
                try $0.decode(column: "name", as: String.self)
            }
            if !columns.contains("quotes") {
                try await db.alter(table: "users").column("quotes", type: .text).run()
            }
        }
    }
}
