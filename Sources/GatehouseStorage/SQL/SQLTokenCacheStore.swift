import GatehouseCore
import Foundation
import SQLKit

/// `TokenCacheStore` over any `SQLDatabase`: table `token_cache_slots`, keyed by (app_id, slot).
package struct SQLTokenCacheStore: TokenCacheStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package func put(_ slot: TokenCacheSlotRecord) async throws {
        try await context.run {
            try await db.insert(into: "token_cache_slots")
                .columns("app_id", "slot", "sealed", "updated_at")
                .values(slot.appID, slot.slot, slot.sealed, SQLCodec.seconds(slot.updatedAt))
                .onConflict(with: ["app_id", "slot"]) {
                    $0.set(excludedValueOf: "sealed").set(excludedValueOf: "updated_at")
                }
                .run()
        }
    }

    package func find(appID: String, slot: String) async throws -> TokenCacheSlotRecord? {
        try await context.run {
            try await db.select().columns("app_id", "slot", "sealed", "updated_at").from("token_cache_slots")
                .where("app_id", .equal, appID).where("slot", .equal, slot)
                .first().map { row in
                    let r = RowReader(row)
                    return TokenCacheSlotRecord(
                        appID: try r.string("app_id"), slot: try r.string("slot"), sealed: try r.string("sealed"),
                        updatedAt: try r.date("updated_at"))
                }
        }
    }

    package func delete(appID: String, slot: String) async throws -> Bool {
        try await context.run {
            !(try await db.delete(from: "token_cache_slots")
                .where("app_id", .equal, appID).where("slot", .equal, slot)
                .returning("slot").all().isEmpty)
        }
    }
}

/// `ServerKeyStore` over any `SQLDatabase`: table `server_keys`.
package struct SQLServerKeyStore: ServerKeyStore {
    package let context: SQLStoreContext
    package let clock: any GatehouseClock

    package init(
        database: any SQLDatabase, clock: any GatehouseClock = SystemClock(), errors: SQLErrorClassifier = .sqlite
    ) {
        self.context = SQLStoreContext(db: database, errors: errors)
        self.clock = clock
    }

    private var db: any SQLDatabase { context.db }

    /// `INSERT … ON CONFLICT DO NOTHING`, then read back: the first writer's key wins on every node.
    package func key(named name: String, orInsert make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await context.run {
            if let existing = try await read(name) { return existing }
            try await db.insert(into: "server_keys")
                .columns("name", "key_base64", "created_at")
                .values(name, Data(make()).base64EncodedString(), SQLCodec.seconds(clock.now()))
                .ignoringConflicts(with: ["name"])
                .run()
            guard let stored = try await read(name) else {
                throw StorageError.unavailable("server key \(name) missing after insert")
            }
            return stored
        }
    }

    private func read(_ name: String) async throws -> [UInt8]? {
        guard
            let row = try await db.select().column("key_base64").from("server_keys").where("name", .equal, name).first()
        else { return nil }
        guard let data = Data(base64Encoded: try row.decode(column: "key_base64", as: String.self)) else {
            throw StorageError.unavailable("server key \(name) is not valid base64")
        }
        return Array(data)
    }
}
