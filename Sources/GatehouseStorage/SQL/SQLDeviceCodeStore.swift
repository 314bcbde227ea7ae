import GatehouseCore
import Foundation
import SQLKit

/// `DeviceCodeStore` over any `SQLDatabase`: table `device_codes`.
package struct SQLDeviceCodeStore: DeviceCodeStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = [
        "id", "code_hash", "user_code", "app_id", "scopes", "created_at", "expires_at", "poll_interval",
        "last_polled_at",
        "status", "user_id", "decided_at",
    ]

    package func insert(_ code: DeviceCodeRecord) async throws {
        try await context.run {
            try await db.insert(into: "device_codes").columns(Self.columns).values(try Self.values(code)).run()
        }
    }

    package func find(codeHash: String) async throws -> DeviceCodeRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("device_codes").where("code_hash", .equal, codeHash)
                .first().map(Self.decode)
        }
    }

    package func find(userCode: String) async throws -> DeviceCodeRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("device_codes").where("user_code", .equal, userCode)
                .orderBy("seq", .descending).limit(1)
                .first().map(Self.decode)
        }
    }

    /// One conditional `UPDATE … WHERE id = ? AND status = ? AND last_polled_at IS ? RETURNING id`.
    package func update(_ record: DeviceCodeRecord, expecting expected: DeviceCodeStatus, expectedPolledAt: Date?)
        async throws -> Bool
    {
        try await context.run {
            var update = db.update("device_codes")
                .set("last_polled_at", to: SQLCodec.seconds(record.lastPolledAt))
                .set("status", to: record.status.rawValue)
                .set("user_id", to: record.userID)
                .set("decided_at", to: SQLCodec.seconds(record.decidedAt))
                .where("id", .equal, record.id)
                .where("status", .equal, expected.rawValue)
            if let polled = expectedPolledAt {
                update = update.where("last_polled_at", .equal, SQLCodec.seconds(polled))
            } else {
                update = update.where("last_polled_at", .is, SQLLiteral.null)
            }
            return !(try await update.returning("id").all().isEmpty)
        }
    }

    package static func values(_ c: DeviceCodeRecord) throws -> [any Encodable & Sendable] {
        [
            c.id, c.codeHash, c.userCode, c.appID, try SQLCodec.json(c.scopes), SQLCodec.seconds(c.createdAt),
            SQLCodec.seconds(c.expiresAt), Int64(c.interval), SQLCodec.seconds(c.lastPolledAt), c.status.rawValue,
            c.userID,
            SQLCodec.seconds(c.decidedAt),
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> DeviceCodeRecord {
        let r = RowReader(row)
        return DeviceCodeRecord(
            id: try r.string("id"), codeHash: try r.string("code_hash"), userCode: try r.string("user_code"),
            appID: try r.string("app_id"), scopes: try r.list("scopes"), createdAt: try r.date("created_at"),
            expiresAt: try r.date("expires_at"), interval: Int(try row.decode(column: "poll_interval", as: Int64.self)),
            lastPolledAt: try r.optionalDate("last_polled_at"),
            status: DeviceCodeStatus(rawValue: try r.string("status")) ?? .consumed,
            userID: try r.optionalString("user_id"), decidedAt: try r.optionalDate("decided_at"))
    }
}
