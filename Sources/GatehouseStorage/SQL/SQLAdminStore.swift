import GatehouseCore
import Foundation
import SQLKit

/// `AdminStore` over any `SQLDatabase`: tables `admin_accounts` (unique lowercased `email_key`) and `admin_sessions`.
package struct SQLAdminStore: AdminStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }
    package static let columns = ["id", "email", "password_hash", "created_at"]
    package static let sessionColumns = ["id", "secret_hash", "admin_id", "created_at", "expires_at"]

    package func create(_ admin: AdminAccountRecord) async throws {
        try await context.run(uniqueConflict: { $0.contains("email") ? "email" : "id" }) {
            try await db.insert(into: "admin_accounts")
                .columns("id", "email", "email_key", "password_hash", "created_at")
                .values(
                    admin.id, admin.email, admin.email.lowercased(), admin.passwordHash,
                    SQLCodec.seconds(admin.createdAt)
                )
                .run()
        }
    }

    package func find(email: String) async throws -> AdminAccountRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("admin_accounts")
                .where("email_key", .equal, email.lowercased()).first().map(Self.admin)
        }
    }

    package func find(id: String) async throws -> AdminAccountRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("admin_accounts").where("id", .equal, id).first().map(
                Self.admin)
        }
    }

    package func list() async throws -> [AdminAccountRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("admin_accounts").orderBy("seq").all().map(Self.admin)
        }
    }

    package func insertSession(_ session: AdminSessionRecord) async throws {
        try await context.run {
            try await db.insert(into: "admin_sessions").columns(Self.sessionColumns)
                .values(
                    session.id, session.secretHash, session.adminID, SQLCodec.seconds(session.createdAt),
                    SQLCodec.seconds(session.expiresAt)
                )
                .run()
        }
    }

    package func findSession(secretHash: String) async throws -> AdminSessionRecord? {
        try await context.run {
            try await db.select().columns(Self.sessionColumns).from("admin_sessions")
                .where("secret_hash", .equal, secretHash).first()
                .map { row in
                    let r = RowReader(row)
                    return AdminSessionRecord(
                        id: try r.string("id"), secretHash: try r.string("secret_hash"),
                        adminID: try r.string("admin_id"),
                        createdAt: try r.date("created_at"), expiresAt: try r.date("expires_at"))
                }
        }
    }

    package func deleteSession(id: String) async throws {
        try await context.run { try await db.delete(from: "admin_sessions").where("id", .equal, id).run() }
    }

    private static func admin(_ row: any SQLRow) throws -> AdminAccountRecord {
        let r = RowReader(row)
        return AdminAccountRecord(
            id: try r.string("id"), email: try r.string("email"), passwordHash: try r.string("password_hash"),
            createdAt: try r.date("created_at"))
    }
}

/// `RateLimitStore` over any `SQLDatabase`: table `rate_limits` keyed by (`key`, `window_start`).
///
/// The increment is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` statement, atomic on SQLite and
/// PostgreSQL alike, so concurrent nodes never lose a count.
package struct SQLRateLimitStore: RateLimitStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package func increment(key: String, windowStart: Int64, amount: Int, expiresAt: Date) async throws -> Int {
        try await context.run {
            let total = try await db.insert(into: "rate_limits")
                .columns("key", "window_start", "count", "expires_at")
                .values(key, windowStart, Int64(amount), SQLCodec.seconds(expiresAt))
                .onConflict(with: ["key", "window_start"]) { update in
                    update.set(
                        SQLColumn("count"),
                        to: SQLBinaryExpression(
                            SQLColumn("count", table: "rate_limits"), .add, SQLExcludedColumn("count")))
                }
                .returning("count")
                .first(decodingColumn: "count", as: Int64.self)
            return Int(total ?? Int64(amount))
        }
    }

    package func count(key: String, windowStart: Int64) async throws -> Int {
        try await context.run {
            let value = try await db.select().column("count").from("rate_limits")
                .where("key", .equal, key).where("window_start", .equal, windowStart)
                .first(decodingColumn: "count", as: Int64.self)
            return Int(value ?? 0)
        }
    }

    package func reset(key: String) async throws {
        try await context.run { try await db.delete(from: "rate_limits").where("key", .equal, key).run() }
    }

    package func purge(expiredBefore now: Date) async throws -> Int {
        try await context.run {
            let removed = try await db.delete(from: "rate_limits")
                .where("expires_at", .lessThan, SQLCodec.seconds(now))
                .returning("key").all()
            return removed.count
        }
    }
}
