import GatehouseCore
import SQLKit

/// Migration 10: the optional durable request journal (`--journal-table`), kept with retention by age and count.
/// Each row is one ``JournalEntry`` as JSON, with the columns readers filter and prune by beside it.
package enum Migration10RequestJournal {
    package static let migration = SQLMigration(version: 10, name: "request journal") { db in
        try await db.create(table: "request_journal").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("time", type: .bigint, .notNull)
            .column("node", type: .text, .notNull)
            .column("app_id", type: .text)
            .column("status", type: .bigint, .notNull)
            .column("entry", type: .text, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "request_journal_time_idx", on: "request_journal", ["time"])
    }
}
