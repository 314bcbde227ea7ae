import GatehouseCore
import Foundation
import SQLKit

/// `TwoFactorStore` over any `SQLDatabase` (migration 16).
package struct SQLTwoFactorStore: TwoFactorStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }
    private static let columns = ["user_id", "secret", "created_at", "confirmed_at", "last_used_step"]

    package func find(userID: String) async throws -> TwoFactorRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("two_factor").where("user_id", .equal, userID).first().map
            { row in
                let r = RowReader(row)
                return TwoFactorRecord(
                    userID: try r.string("user_id"), secret: try r.string("secret"),
                    createdAt: try r.date("created_at"),
                    confirmedAt: try r.optionalDate("confirmed_at"),
                    lastUsedStep: try row.decode(column: "last_used_step", as: Int64?.self))
            }
        }
    }

    /// Throws `.notFound` for an unknown person (the foreign key).
    package func save(_ record: TwoFactorRecord) async throws {
        try await context.run {
            try await db.insert(into: "two_factor").columns(Self.columns)
                .values(
                    record.userID, record.secret, SQLCodec.seconds(record.createdAt),
                    SQLCodec.seconds(record.confirmedAt),
                    record.lastUsedStep
                )
                .onConflict(with: ["user_id"]) { update in
                    update.set(excludedValueOf: "secret").set(excludedValueOf: "created_at")
                        .set(excludedValueOf: "confirmed_at").set(excludedValueOf: "last_used_step")
                }
                .run()
        }
    }

    package func delete(userID: String) async throws {
        try await context.run {
            try await db.delete(from: "two_factor_recovery_codes").where("user_id", .equal, userID).run()
            try await db.delete(from: "two_factor").where("user_id", .equal, userID).run()
        }
    }

    /// `UPDATE … SET last_used_step = ? WHERE user_id = ? AND (last_used_step IS NULL OR last_used_step < ?)
    /// RETURNING user_id`: of two requests with the same code, the database lets one through.
    package func useStep(userID: String, step: Int64) async throws -> Bool {
        try await context.run {
            try await !db.update("two_factor").set("last_used_step", to: SQLBind(step))
                .where("user_id", .equal, SQLBind(userID))
                .where { group in
                    group.where("last_used_step", .is, SQLLiteral.null).orWhere(
                        "last_used_step", .lessThan, SQLBind(step))
                }
                .returning("user_id").all().isEmpty
        }
    }

    package func replaceRecoveryCodes(userID: String, hashes: [String]) async throws {
        try await context.run {
            try await db.delete(from: "two_factor_recovery_codes").where("user_id", .equal, userID).run()
            guard !hashes.isEmpty else { return }
            var insert = db.insert(into: "two_factor_recovery_codes").columns("user_id", "code_hash")
            for hash in hashes { insert = insert.values(userID, hash) }
            try await insert.run()
        }
    }

    package func useRecoveryCode(userID: String, hash: String) async throws -> Bool {
        try await context.run {
            try await !db.delete(from: "two_factor_recovery_codes").where("user_id", .equal, userID)
                .where("code_hash", .equal, hash).returning("code_hash").all().isEmpty
        }
    }

    package func recoveryCodesLeft(userID: String) async throws -> Int {
        try await context.run {
            try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(
                "two_factor_recovery_codes"
            )
            .where("user_id", .equal, userID).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}

/// `SessionActivityStore` over any `SQLDatabase` (migration 16).
package struct SQLSessionActivityStore: SessionActivityStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    /// An upsert; a session deleted meanwhile fails its foreign key, which is ignored (nothing to record).
    package func touch(sessionID: String, userAgent: String?, ip: String?, at: Date) async throws {
        do {
            try await context.run {
                try await db.insert(into: "session_activity").columns("session_id", "user_agent", "ip", "last_used_at")
                    .values(
                        sessionID, userAgent.map { String($0.prefix(512)) }, ip.map { String($0.prefix(64)) },
                        SQLCodec.seconds(at)
                    )
                    .onConflict(with: ["session_id"]) { update in
                        update.set(excludedValueOf: "user_agent").set(excludedValueOf: "ip").set(
                            excludedValueOf: "last_used_at")
                    }
                    .run()
            }
        } catch StorageError.notFound {}
    }

    package func list(userID: String) async throws -> [SessionActivityRecord] {
        try await context.run {
            let columns = SQLBrowserSessionStore.columns.map {
                SQLColumn($0, table: "browser_sessions") as any SQLExpression
            }
            return try await db.select().columns(columns)
                .columns(
                    SQLColumn("user_agent", table: "session_activity"), SQLColumn("ip", table: "session_activity"),
                    SQLColumn("last_used_at", table: "session_activity")
                )
                .from("browser_sessions")
                .join(
                    "session_activity", method: SQLJoinMethod.left,
                    on: SQLColumn("session_id", table: "session_activity"), .equal,
                    SQLColumn("id", table: "browser_sessions")
                )
                .where(SQLColumn("user_id", table: "browser_sessions"), .equal, SQLBind(userID))
                .all()
                .map { row in
                    let r = RowReader(row)
                    return SessionActivityRecord(
                        session: try SQLBrowserSessionStore.decode(row), userAgent: try r.optionalString("user_agent"),
                        ip: try r.optionalString("ip"), lastUsedAt: try r.optionalDate("last_used_at"))
                }
                .sorted { ($0.lastUsedAt ?? $0.session.createdAt) > ($1.lastUsedAt ?? $1.session.createdAt) }
        }
    }
}
