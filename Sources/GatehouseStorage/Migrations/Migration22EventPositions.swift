import GatehouseCore
import SQLKit

/// Migration 22 (issue 43): an event's position is never drawn twice. A reset empties `events` (and retention may
/// too); on SQLite `seq` was the plain rowid, so the next event took position 1 again and a follower's cursor
/// (`gatehouse events --follow`) skipped every event up to its old position. `AUTOINCREMENT` keeps the highest
/// position ever drawn in `sqlite_sequence`. PostgreSQL's identity column never goes back: nothing to do there.
package enum Migration22EventPositions {
    package static let migration = SQLMigration(version: 22, name: "event positions keep counting") { db in
        guard db.dialect.name == "sqlite" else { return }
        // SQLite cannot add AUTOINCREMENT to a table: it is rebuilt with the same columns, rows and index.
        try await db.raw("DROP TABLE IF EXISTS \"events_counted\"").run()
        try await db.raw(
            """
            CREATE TABLE "events_counted" ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "id" TEXT NOT NULL UNIQUE, \
            "type" TEXT NOT NULL, "time" INTEGER NOT NULL, "app_id" TEXT, "person_id" TEXT, "node" TEXT NOT NULL, \
            "details" TEXT NOT NULL)
            """
        ).run()
        try await db.raw(
            """
            INSERT INTO "events_counted" ("seq", "id", "type", "time", "app_id", "person_id", "node", "details") \
            SELECT "seq", "id", "type", "time", "app_id", "person_id", "node", "details" FROM "events"
            """
        ).run()
        try await db.raw("DROP TABLE \"events\"").run()
        try await db.raw("ALTER TABLE \"events_counted\" RENAME TO \"events\"").run()
        try await SQLSchemaTypes.createIndex(db, "events_time_idx", on: "events", ["time"])
    }
}
