import GatehouseCore
import SQLKit

/// Migration 19 (issue 42): the operators' event stream (`events`) and its outbox to HTTP sinks
/// (`event_deliveries`). No foreign keys: an event outlives the app, person or token it names.
package enum Migration19Events {
    package static let migration = SQLMigration(version: 19, name: "events and event deliveries") { db in
        try await db.create(table: "events").ifNotExists()
            .column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
            .column("type", type: .text, .notNull)
            .column("time", type: .bigint, .notNull)
            .column("app_id", type: .text)
            .column("person_id", type: .text)
            .column("node", type: .text, .notNull)
            .column("details", type: .text, .notNull)
            .run()
        try await SQLSchemaTypes.createIndex(db, "events_time_idx", on: "events", ["time"])
        try await db.create(table: "event_deliveries").ifNotExists()
            .outboxKey()
            .column("event_id", type: .text, .notNull)
            .column("sink", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .outboxDeliveryState()
            .run()
        try await SQLSchemaTypes.createOutboxDueIndex(db, table: "event_deliveries")
        try await SQLSchemaTypes.createIndex(db, "event_deliveries_event_idx", on: "event_deliveries", ["event_id"])
    }
}
