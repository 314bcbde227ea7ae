import Foundation
import GatehouseCore
import SQLKit

/// The durable request journal (`request_journal`, migration 10), written once for SQLite and PostgreSQL.
package struct SQLJournalStore: JournalStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    /// Rows per INSERT statement (well below both backends' bind-parameter limits).
    static let batchSize = 100

    package func append(_ entries: [JournalEntry], node: String) async throws {
        guard !entries.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        try await context.run {
            for start in stride(from: 0, to: entries.count, by: Self.batchSize) {
                var insert = db.insert(into: "request_journal").columns("time", "node", "app_id", "status", "entry")
                for entry in entries[start..<min(entries.count, start + Self.batchSize)] {
                    let json = String(decoding: try encoder.encode(entry), as: UTF8.self)
                    insert = insert.values(SQLCodec.seconds(entry.time), node, entry.appID, Int64(entry.status), json)
                }
                try await insert.run()
            }
        }
    }

    package func recent(limit: Int) async throws -> [JournalEntry] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try await context.run {
            try await db.select().columns("entry").from("request_journal").orderBy("seq", .descending).limit(
                max(0, limit)
            )
            .all().compactMap { row in
                try? decoder.decode(
                    JournalEntry.self, from: Data(try row.decode(column: "entry", as: String.self).utf8))
            }
        }
    }

    @discardableResult
    package func prune(olderThan cutoff: Date, keepingAtMost maximumRows: Int) async throws -> Int {
        try await context.run {
            let old = try await db.delete(from: "request_journal").where("time", .lessThan, SQLCodec.seconds(cutoff))
                .returning("seq").all().count
            // The newest `maximumRows` stay: everything at or below the first sequence number past them goes.
            let boundary = try await db.select().column("seq").from("request_journal").orderBy("seq", .descending)
                .offset(max(0, maximumRows)).limit(1).first()
            guard let boundary, let seq = try? boundary.decode(column: "seq", as: Int64.self) else { return old }
            let extra = try await db.delete(from: "request_journal").where("seq", .lessThanOrEqual, seq).returning(
                "seq"
            ).all().count
            return old + extra
        }
    }
}
