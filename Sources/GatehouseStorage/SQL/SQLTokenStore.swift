import GatehouseCore
import Foundation
import SQLKit

/// `TokenStore` over any `SQLDatabase`: table `tokens` (unique `token_hash`; indexed by (app_id, user_id),
/// user_id and code_id).
///
/// Revocations only touch tokens not yet revoked, so the first revocation time is kept.
package struct SQLTokenStore: TokenStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = [
        "id", "token_hash", "kind", "app_id", "user_id", "issued_at", "expires_at", "revoked_at", "code_id",
        "auth_type", "auth_nonce", "origin",
    ]

    /// Throws `.conflict` if the id or hash exists, `.notFound` for an unknown app or user.
    package func insert(_ token: TokenRecord) async throws {
        try await context.run(uniqueConflict: { $0.contains("token_hash") ? "token_hash" : "id" }) {
            try await db.run(Self.insertStatement.on(db, Self.values(token)))
        }
    }

    package func find(tokenHash: String) async throws -> TokenRecord? {
        try await context.run {
            try await db.rows(Self.findByHash.on(db, [tokenHash])).first.map(Self.decode)
        }
    }

    /// Every token minted runs these two; their text is kept (``SQLStatementText``).
    fileprivate static let insertStatement = SQLStatementText(binds: columns.count, preparedAs: Insert.self) { db in
        db.insert(into: "tokens").columns(columns).values(SQLStatementText.placeholders(columns.count)).query
    }
    fileprivate static let findByHash = SQLStatementText(binds: 1, preparedAs: FindByHash.self) { db in
        db.select().columns(columns).from("tokens").where("token_hash", .equal, 0).query
    }

    /// Unknown ids are ignored.
    package func setExpiry(id: String, expiresAt: Date?) async throws {
        try await context.run {
            try await db.update("tokens")
                .set("expires_at", to: SQLCodec.seconds(expiresAt))
                .where("id", .equal, id)
                .run()
        }
    }

    /// Idempotent: an already revoked token keeps its first revocation time; unknown ids are ignored.
    package func revoke(id: String, at: Date) async throws -> [TokenRecord] {
        try await revoke(at: at) { $0.where("id", .equal, id) }
    }

    package func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        try await revoke(at: at) { $0.where("app_id", .equal, appID).where("user_id", .equal, userID) }
    }

    package func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        try await revoke(at: at) { $0.where("user_id", .equal, userID) }
    }

    package func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        try await revoke(at: at) { $0.where("code_id", .equal, codeID) }
    }

    /// A token is live when `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now)`, comparing whole
    /// seconds. Newest first (issue time, then insertion order).
    package func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        try await context.run {
            let query = db.select().columns(Self.columns).from("tokens")
                .where("revoked_at", .is, SQLLiteral.null)
                .where(group: {
                    $0.where("expires_at", .is, SQLLiteral.null)
                        .orWhere("expires_at", .greaterThan, SQLCodec.seconds(now))
                })
            if let appID { query.where("app_id", .equal, appID) }
            if let userID { query.where("user_id", .equal, userID) }
            return
                try await query
                .orderBy("issued_at", .descending).orderBy("seq", .descending)
                .all().map(Self.decode)
        }
    }

    /// Returns the rows it revoked (`RETURNING`, SQLite 3.35 and PostgreSQL alike), as they are now.
    private func revoke(at: Date, _ filter: (SQLUpdateBuilder) -> SQLUpdateBuilder) async throws -> [TokenRecord] {
        try await context.run {
            let update = db.update("tokens")
                .set("revoked_at", to: SQLCodec.seconds(at))
                .where("revoked_at", .is, SQLLiteral.null)
            return try await filter(update).returning(Self.columns.map { SQLColumn($0) }).all().map(Self.decode)
        }
    }

    package static func values(_ token: TokenRecord) -> [any Encodable & Sendable] {
        [
            token.id, token.tokenHash, token.kind.rawValue, token.appID, token.userID,
            SQLCodec.seconds(token.issuedAt), SQLCodec.seconds(token.expiresAt), SQLCodec.seconds(token.revokedAt),
            token.codeID, token.authType, token.authNonce, token.origin,
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> TokenRecord {
        var r = SQLColumnLayout(columns).cursor(SQLNamedCells(row, names: columns))
        return try decode(&r)
    }

    /// Reads `columns` in their order (``SQLRowCursor`` checks each name against the list).
    package static func decode(_ r: inout SQLRowCursor) throws -> TokenRecord {
        TokenRecord(
            id: try r.string("id"),
            tokenHash: try r.string("token_hash"),
            kind: try kind(r.string("kind")),
            appID: try r.string("app_id"),
            userID: try r.optionalString("user_id"),
            issuedAt: try r.date("issued_at"),
            expiresAt: try r.optionalDate("expires_at"),
            revokedAt: try r.optionalDate("revoked_at"),
            codeID: try r.optionalString("code_id"),
            authType: try r.optionalString("auth_type"),
            authNonce: try r.optionalString("auth_nonce"),
            origin: try r.optionalString("origin")
        )
    }

    private static func kind(_ raw: String) throws -> TokenKind {
        guard let kind = TokenKind(rawValue: raw) else {
            throw StorageError.unavailable("stored token has an unknown kind")
        }
        return kind
    }
}

/// The names PostgreSQL keeps these statements under (``SQLPreparedKey``).
extension SQLTokenStore {
    fileprivate enum Insert: SQLPreparedKey {
        static let name = "gh_token_insert"
        static var statement: SQLStatementText { SQLTokenStore.insertStatement }
    }
    fileprivate enum FindByHash: SQLPreparedKey {
        static let name = "gh_token_find"
        static var statement: SQLStatementText { SQLTokenStore.findByHash }
    }
}
