import GatehouseCore
import SQLKit

/// Migration 13: the per-app "Allowed Domains for the JavaScript SDK", an empty JSON list for every existing app.
package enum Migration13JavaScriptSDKDomains {
    package static let migration = SQLMigration(version: 13, name: "JavaScript SDK domains per app") { db in
        // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
        if db.dialect.name == "postgresql" {
            try await db.raw("ALTER TABLE apps ADD COLUMN IF NOT EXISTS js_sdk_domains TEXT NOT NULL DEFAULT '[]'")
                .run()
        } else {
            let columns = try await db.raw("PRAGMA table_info(apps)").all().map {
                try $0.decode(column: "name", as: String.self)
            }
            if !columns.contains("js_sdk_domains") {
                try await db.raw("ALTER TABLE apps ADD COLUMN js_sdk_domains TEXT NOT NULL DEFAULT '[]'").run()
            }
        }
    }
}
