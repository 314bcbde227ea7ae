import GatehouseCore
import SQLKit

/// Migration 9: the per-app "Require PKCE" setting, off for every existing app.
package enum Migration09RequirePKCE {
    package static let migration = SQLMigration(version: 9, name: "require PKCE per app") { db in
        // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
        if db.dialect.name == "postgresql" {
            try await db.raw("ALTER TABLE apps ADD COLUMN IF NOT EXISTS require_pkce BOOLEAN NOT NULL DEFAULT FALSE")
                .run()
        } else {
            let columns = try await db.raw("PRAGMA table_info(apps)").all().map {
                try $0.decode(column: "name", as: String.self)
            }
            if !columns.contains("require_pkce") {
                try await db.raw("ALTER TABLE apps ADD COLUMN require_pkce INTEGER NOT NULL DEFAULT 0").run()
            }
        }
    }
}
