import GatehouseCore
import SQLKit

/// Migration 5: the grant's default audience, timeline posts and app requests.
package enum Migration05AudienceAndPosts {
    package static let migration = SQLMigration(version: 5, name: "audience, posts, app requests") { db in
        let cascadeApp = SQLColumnConstraintAlgorithm.references("apps", "id", onDelete: .cascade)
        let cascadeUser = SQLColumnConstraintAlgorithm.references("users", "id", onDelete: .cascade)

        // `ADD COLUMN` has no `IF NOT EXISTS` in SQLite: look first, so a re-run stays harmless.
        if db.dialect.name == "postgresql" {
            try await db.raw("ALTER TABLE grants ADD COLUMN IF NOT EXISTS default_audience TEXT").run()
        } else {
            let columns = try await db.raw("PRAGMA table_info(grants)").all().map {
                try $0.decode(column: "name", as: String.self)
            }
            if !columns.contains("default_audience") {
                try await db.alter(table: "grants").column("default_audience", type: .text).run()
            }
        }

        try await db.create(table: "posts").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("author_id", type: .text, .notNull, cascadeUser)
            .column("message", type: .text)
            .column("link", type: .text)
            .column("name", type: .text)
            .column("caption", type: .text)
            .column("description", type: .text)
            .column("picture", type: .text)
            .column("audience", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "posts_author_idx", on: "posts", ["author_id"])
        try await SQLSchemaTypes.createIndex(db, "posts_app_idx", on: "posts", ["app_id"])

        try await db.create(table: "app_requests").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("request_id", type: .text, .notNull)
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("sender_id", type: .text, .notNull, cascadeUser)
            .column("recipient_id", type: .text, .notNull, cascadeUser)
            .column("message", type: .text, .notNull)
            .column("data", type: .text)
            .column("title", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .unique("request_id", "recipient_id")
            .run()
        try await SQLSchemaTypes.createIndex(
            db, "app_requests_recipient_idx", on: "app_requests", ["app_id", "recipient_id"])
    }
}
