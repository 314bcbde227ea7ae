import SQLKit

/// The columns every outbox table shares, written once for the four migrations that make one (app callbacks, mail,
/// event deliveries, webhook deliveries) and read by ``SQLOutboxTable``: a row is ordered by `seq` within a second,
/// found by `id`, and moved through its delivery by the state columns.
///
/// Migrations are history: a change here would change what an old migration creates on a new database, so a new
/// outbox column belongs in a new migration's `ALTER TABLE`, not here.
extension SQLCreateTableBuilder {
    /// `seq` (which orders rows due in the same second by when they were queued) and the row's `id`.
    func outboxKey() -> Self {
        column("seq", type: .bigint, .primaryKey(autoIncrement: true))
            .column("id", type: .text, .notNull, .unique)
    }

    /// Attempts so far, when the row is next due (NULL once delivered or given up), and when it was queued,
    /// delivered or given up, with the last failure's text.
    func outboxDeliveryState() -> Self {
        column("attempts", type: .bigint, .notNull)
            .column("next_attempt_at", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("delivered_at", type: .bigint)
            .column("gave_up_at", type: .bigint)
            .column("last_error", type: .text)
    }
}

extension SQLSchemaTypes {
    /// The index the outbox worker's "what is due" query reads.
    static func createOutboxDueIndex(_ db: any SQLDatabase, table: String) async throws {
        try await createIndex(db, "\(table)_due_idx", on: table, ["next_attempt_at"])
    }
}
