import GatehouseCore
import Foundation
import SQLKit

/// `AdminTokenStore` on ``SQLAdminStore``: tables `admin_tokens` (unique `token_hash`) and `admin_audit`
/// (append-only, read newest first by `seq`).
extension SQLAdminStore {
    private var database: any SQLDatabase { context.db }
    static let tokenColumns = ["id", "name", "display_prefix", "token_hash", "read_only", "created_at", "revoked_at"]
    static let auditColumns = [
        "seq", "time", "actor_kind", "actor_id", "actor_name", "method", "route", "target", "status",
    ]

    package func insertToken(_ token: AdminTokenRecord) async throws {
        try await context.run(uniqueConflict: { $0.contains("hash") ? "token_hash" : "id" }) {
            try await database.insert(into: "admin_tokens").columns(Self.tokenColumns)
                .values(
                    token.id, token.name, token.displayPrefix, token.tokenHash, token.readOnly,
                    SQLCodec.seconds(token.createdAt), SQLCodec.seconds(token.revokedAt)
                )
                .run()
        }
    }

    package func findToken(hash: String) async throws -> AdminTokenRecord? {
        try await context.run {
            try await database.select().columns(Self.tokenColumns).from("admin_tokens")
                .where("token_hash", .equal, hash).first().map(Self.token)
        }
    }

    package func listTokens() async throws -> [AdminTokenRecord] {
        try await context.run {
            try await database.select().columns(Self.tokenColumns).from("admin_tokens").orderBy("seq").all().map(
                Self.token)
        }
    }

    package func revokeToken(id: String, at time: Date) async throws -> Bool {
        try await context.run {
            let revoked = try await database.update("admin_tokens")
                .set("revoked_at", to: SQLCodec.seconds(time))
                .where("id", .equal, id).where("revoked_at", .is, SQLLiteral.null)
                .returning("id").all()
            return !revoked.isEmpty
        }
    }

    package func appendAudit(_ entry: AuditEntryRecord) async throws {
        try await context.run {
            try await database.insert(into: "admin_audit").columns(Array(Self.auditColumns.dropFirst()))
                .values(
                    SQLCodec.seconds(entry.time), entry.actorKind, entry.actorID, entry.actorName, entry.method,
                    entry.route, entry.target, Int64(entry.status)
                )
                .run()
        }
    }

    package func audit(before: Int64?, limit: Int) async throws -> [AuditEntryRecord] {
        try await context.run {
            var query = database.select().columns(Self.auditColumns).from("admin_audit")
            if let before { query = query.where("seq", .lessThan, before) }
            return try await query.orderBy("seq", .descending).limit(limit).all().map { row in
                let r = RowReader(row)
                return AuditEntryRecord(
                    sequence: try row.decode(column: "seq", as: Int64.self), time: try r.date("time"),
                    actorKind: try r.string("actor_kind"), actorID: try r.optionalString("actor_id"),
                    actorName: try r.optionalString("actor_name"), method: try r.string("method"),
                    route: try r.string("route"),
                    target: try r.optionalString("target"),
                    status: Int(try row.decode(column: "status", as: Int64.self)))
            }
        }
    }

    private static func token(_ row: any SQLRow) throws -> AdminTokenRecord {
        let r = RowReader(row)
        return AdminTokenRecord(
            id: try r.string("id"), name: try r.string("name"), displayPrefix: try r.string("display_prefix"),
            tokenHash: try r.string("token_hash"), readOnly: try r.bool("read_only"),
            createdAt: try r.date("created_at"),
            revokedAt: try r.optionalDate("revoked_at"))
    }
}
