import GatehouseCore
import SQLKit

/// Migration 14: an app request's notification (the requests dialog's `notification_text`) and when its
/// recipient accepted it from their notifications. (13 is left to the JavaScript SDK's domains, written alongside.)
package enum Migration14AppRequestNotifications {
    package static let migration = SQLMigration(version: 14, name: "app request notifications") { db in
        for (column, type) in [("notification_text", "TEXT"), ("accepted_at", "BIGINT")] {
            // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
            if db.dialect.name == "postgresql" {
                try await db.raw(
                    "ALTER TABLE app_requests ADD COLUMN IF NOT EXISTS \(unsafeRaw: column) \(unsafeRaw: type)"
                ).run()
            } else {
                let columns = try await db.raw("PRAGMA table_info(app_requests)").all().map {
                    try $0.decode(column: "name", as: String.self)
                }
                if !columns.contains(column) {
                    try await db.raw("ALTER TABLE app_requests ADD COLUMN \(unsafeRaw: column) \(unsafeRaw: type)")
                        .run()
                }
            }
        }
    }
}
