import GatehouseCore
import Foundation
import SQLKit

/// ``DeletedAccountStore`` over `deleted_accounts`, for both dialects.
package struct SQLDeletedAccountStore: DeletedAccountStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    static let columns = ["key", "app_id", "deleted_at", "forget_at"]

    /// `INSERT … ON CONFLICT DO NOTHING`, one statement per row (a person has a handful of tokens).
    package func remember(_ records: [DeletedAccountRecord]) async throws {
        guard !records.isEmpty else { return }
        try await context.run {
            for record in records {
                try await db.insert(into: "deleted_accounts").columns(Self.columns).values(
                    [
                        record.key, record.appID, SQLCodec.seconds(record.deletedAt), SQLCodec.seconds(record.forgetAt),
                    ] as [any Encodable & Sendable]
                ).ignoringConflicts().run()
            }
        }
    }

    package func find(key: String, now: Date) async throws -> DeletedAccountRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("deleted_accounts")
                .where("key", .equal, SQLBind(key)).where("forget_at", .greaterThan, SQLBind(SQLCodec.seconds(now)))
                .first().map { row in
                    let r = RowReader(row)
                    return DeletedAccountRecord(
                        key: try r.string("key"), appID: try r.optionalString("app_id"),
                        deletedAt: try r.date("deleted_at"),
                        forgetAt: try r.date("forget_at"))
                }
        }
    }

    @discardableResult
    package func forget(before: Date) async throws -> Int {
        try await context.run {
            try await db.delete(from: "deleted_accounts").where(
                "forget_at", .lessThanOrEqual, SQLBind(SQLCodec.seconds(before))
            )
            .returning("key").all().count
        }
    }
}
