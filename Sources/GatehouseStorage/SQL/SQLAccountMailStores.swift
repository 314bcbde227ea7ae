import GatehouseCore
import Foundation
import SQLKit

/// `MailOutboxStore` over any `SQLDatabase`: table `mail_messages` (migration 15). Insert, find, due, claim and
/// update are ``SQLOutboxTable``'s.
package struct SQLMailOutboxStore: MailOutboxStore, SQLOutboxTable {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let table = "mail_messages"
    package static let columns = [
        "id", "kind", "user_id", "to_address", "subject", "text_body", "html_body", "created_at", "attempts",
        "next_attempt_at", "delivered_at", "gave_up_at", "last_error",
    ]

    package func list(to: String?, limit: Int) async throws -> [MailMessageRecord] {
        try await context.run {
            var query = db.select().columns(Self.columns).from(Self.table)
            if let to {
                query = query.where(
                    SQLFunction("lower", args: SQLIdentifier("to_address")), .equal, SQLBind(to.lowercased()))
            }
            return try await query.orderBy("seq", .descending).limit(max(0, limit)).all().map(Self.decode)
        }
    }

    package func delete(id: String) async throws -> Bool {
        try await context.run {
            !(try await db.delete(from: Self.table).where("id", .equal, id).returning("id").all().isEmpty)
        }
    }

    package func deleteAll() async throws -> Int {
        try await context.run {
            try await db.delete(from: Self.table).returning("id").all().count
        }
    }

    package func deleteAll(userID: String, address: String) async throws -> Int {
        try await context.run {
            try await db.delete(from: Self.table)
                .where("user_id", .equal, SQLBind(userID))
                .orWhere(SQLFunction("lower", args: SQLIdentifier("to_address")), .equal, SQLBind(address.lowercased()))
                .returning("id").all().count
        }
    }

    package func prune(createdBefore cutoff: Date) async throws -> Int {
        try await context.run {
            try await db.delete(from: Self.table)
                .where("created_at", .lessThan, SQLBind(SQLCodec.seconds(cutoff)))
                .where("next_attempt_at", .is, SQLLiteral.null)
                .returning("id").all().count
        }
    }

    package static func values(_ m: MailMessageRecord) -> [any Encodable & Sendable] {
        [
            m.id, m.kind, m.userID, m.to, m.subject, m.text, m.html, SQLCodec.seconds(m.createdAt), Int64(m.attempts),
            SQLCodec.seconds(m.nextAttemptAt), SQLCodec.seconds(m.deliveredAt), SQLCodec.seconds(m.gaveUpAt),
            m.lastError,
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> MailMessageRecord {
        let r = RowReader(row)
        return MailMessageRecord(
            id: try r.string("id"), kind: try r.string("kind"), userID: try r.optionalString("user_id"),
            to: try r.string("to_address"),
            subject: try r.string("subject"), text: try r.string("text_body"), html: try r.string("html_body"),
            createdAt: try r.date("created_at"), attempts: Int(try row.decode(column: "attempts", as: Int64.self)),
            nextAttemptAt: try r.optionalDate("next_attempt_at"), deliveredAt: try r.optionalDate("delivered_at"),
            gaveUpAt: try r.optionalDate("gave_up_at"), lastError: try r.optionalString("last_error"))
    }
}

/// `AccountCodeStore` over any `SQLDatabase`: table `account_codes` (migration 15), keyed by the code's hash.
package struct SQLAccountCodeStore: AccountCodeStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    static let columns = ["code_hash", "purpose", "user_id", "email", "created_at", "expires_at", "used_at"]

    /// Throws `.conflict` for a hash that exists, `.notFound` for an unknown person.
    package func insert(_ code: AccountCodeRecord) async throws {
        try await context.run(uniqueConflict: { _ in "code_hash" }) {
            try await db.insert(into: "account_codes").columns(Self.columns).values(
                [
                    code.codeHash, code.purpose.rawValue, code.userID, code.email, SQLCodec.seconds(code.createdAt),
                    SQLCodec.seconds(code.expiresAt), SQLCodec.seconds(code.usedAt),
                ] as [any Encodable & Sendable]
            ).run()
        }
    }

    package func find(codeHash: String) async throws -> AccountCodeRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("account_codes").where("code_hash", .equal, codeHash)
                .first().map(Self.decode)
        }
    }

    /// One `UPDATE … WHERE used_at IS NULL AND expires_at > now RETURNING …`: the database picks the one winner.
    package func consume(codeHash: String, purpose: AccountCodePurpose, at: Date) async throws -> AccountCodeRecord? {
        try await context.run {
            let now = SQLCodec.seconds(at)
            return try await db.update("account_codes").set("used_at", to: SQLBind(now))
                .where("code_hash", .equal, SQLBind(codeHash)).where("purpose", .equal, SQLBind(purpose.rawValue))
                .where("used_at", .is, SQLLiteral.null).where("expires_at", .greaterThan, SQLBind(now))
                .returning(SQLLiteral.all).first().map(Self.decode)
        }
    }

    package func expireAll(userID: String, purpose: AccountCodePurpose, at: Date) async throws {
        try await context.run {
            let now = SQLCodec.seconds(at)
            try await db.update("account_codes").set("expires_at", to: SQLBind(now))
                .where("user_id", .equal, SQLBind(userID)).where("purpose", .equal, SQLBind(purpose.rawValue))
                .where("used_at", .is, SQLLiteral.null).where("expires_at", .greaterThan, SQLBind(now)).run()
        }
    }

    package func list(limit: Int) async throws -> [AccountCodeRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("account_codes")
                .orderBy("created_at", .descending).limit(max(0, limit)).all().map(Self.decode)
        }
    }

    package func prune(before cutoff: Date) async throws -> Int {
        try await context.run {
            let cutoff = SQLBind(SQLCodec.seconds(cutoff))
            return try await db.delete(from: "account_codes")
                .where("expires_at", .lessThan, cutoff).orWhere("used_at", .lessThan, cutoff)
                .returning("code_hash").all().count
        }
    }

    static func decode(_ row: any SQLRow) throws -> AccountCodeRecord {
        let r = RowReader(row)
        return AccountCodeRecord(
            codeHash: try r.string("code_hash"),
            purpose: AccountCodePurpose(rawValue: try r.string("purpose")) ?? .invitation,
            userID: try r.optionalString("user_id"), email: try r.string("email"), createdAt: try r.date("created_at"),
            expiresAt: try r.date("expires_at"), usedAt: try r.optionalDate("used_at"))
    }
}
