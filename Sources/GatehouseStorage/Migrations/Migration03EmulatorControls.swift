import GatehouseCore
import SQLKit

/// Migration 3: the emulator's injected errors and its persisted settings (the clock offset).
package enum Migration03EmulatorControls {
    package static let migration = SQLMigration(version: 3, name: "emulator controls") { db in
        try await db.create(table: "injected_errors").ifNotExists()
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("target_kind", type: .text, .notNull)
            .column("target_id", type: .text, .notNull)
            .column("code", type: .bigint, .notNull)
            .column("subcode", type: .bigint)
            .column("remaining", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(
            db, "injected_errors_target", on: "injected_errors", ["target_kind", "target_id"])
        try await db.create(table: "emulator_settings").ifNotExists()
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("value", type: .text, .notNull)
            .run()
    }
}
