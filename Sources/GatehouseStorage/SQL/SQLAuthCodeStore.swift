import GatehouseCore
import Foundation
import SQLKit

/// `AuthCodeStore` over any `SQLDatabase`: table `auth_codes` (unique `code_hash`).
///
/// Scopes are a JSON array in a TEXT column.
package struct SQLAuthCodeStore: AuthCodeStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = [
        "id", "code_hash", "app_id", "user_id", "redirect_uri", "code_challenge", "code_challenge_method", "nonce",
        "auth_type", "auth_nonce", "scopes", "created_at", "expires_at", "used_at",
    ]

    /// Throws `.conflict` if the id or code hash exists, `.notFound` for an unknown app or user.
    package func insert(_ code: AuthCodeRecord) async throws {
        try await context.run(uniqueConflict: { $0.contains("code_hash") ? "code_hash" : "id" }) {
            try await db.run(Self.insertStatement.on(db, try Self.values(code)))
        }
    }

    package func find(codeHash: String) async throws -> AuthCodeRecord? {
        try await context.run {
            try await db.rows(Self.findByHash.on(db, [codeHash])).first.map(Self.decode)
        }
    }

    /// One statement, `UPDATE auth_codes SET used_at = ? WHERE id = ? AND used_at IS NULL RETURNING id`:
    /// the database decides which of several racing callers wins. False for an unknown id too.
    package func consume(id: String, at: Date) async throws -> Bool {
        try await context.run {
            try await !db.rows(Self.consumeStatement.on(db, [SQLCodec.seconds(at), id])).isEmpty
        }
    }

    /// PostgreSQL only: consumes the code and stores `token` in one statement (``exchangeStatement``), committed
    /// before it returns; false, with nothing stored, when the code is unknown or used. Throws `.conflict` as
    /// ``SQLTokenStore/insert(_:)`` does.
    package func consume(id: String, at: Date, storing token: TokenRecord) async throws -> Bool {
        try await context.run(uniqueConflict: { $0.contains("token_hash") ? "token_hash" : "id" }) {
            try await !db.rows(Self.exchangeStatement.on(db, [SQLCodec.seconds(at), id] + SQLTokenStore.values(token)))
                .isEmpty
        }
    }

    /// PostgreSQL only: ``consume(id:at:storing:)`` and `events` in one statement, so the exchange is never
    /// stored without its events nor they without it (they take their numbers under the events' lock, as
    /// ``SQLEventStore``'s appends do). Events with sink deliveries are not for this statement. The token
    /// endpoint's two events (`code.exchanged`, `token.issued`) go as a prepared statement.
    package func consume(id: String, at: Date, storing token: TokenRecord, events: [GatehouseEvent]) async throws
        -> Bool
    {
        guard !events.isEmpty else { return try await consume(id: id, at: at, storing: token) }
        let values: [any Encodable & Sendable] =
            [SQLCodec.seconds(at), id] + SQLTokenStore.values(token) + [SQLEventStore.appendLockKey]
            + SQLEventStore.lockedInsertValues(events)
        let statement =
            events.count == 2
            ? Self.exchangeAnnouncedStatement.on(db, values)
            : Self.exchange(events: events.count).on(db, values)
        return try await context.run(uniqueConflict: { $0.contains("token_hash") ? "token_hash" : "id" }) {
            try await !db.rows(statement).isEmpty
        }
    }

    /// ``consumeStatement`` and ``SQLTokenStore``'s insert as one statement, for PostgreSQL (SQLite has no `UPDATE`
    /// inside `WITH`): the code exchange commits in one round trip instead of `BEGIN`, two statements and `COMMIT`.
    /// The token is inserted only when the update returned the code. With `events`, the events' lock and their
    /// insert follow the token's, read from it, so no token means no events.
    /// Binds: `used_at`, the code's id, the token's; with events, the lock's key and the events' (``SQLEventStore``).
    fileprivate static func exchange(events: Int) -> SQLStatementText {
        let key: (any SQLPreparedKey.Type)? =
            switch events {
            case 0: Exchange.self
            case 2: ExchangeAnnounced.self
            default: nil
            }
        return SQLStatementText(
            binds: 2 + SQLTokenStore.columns.count + (events == 0 ? 0 : 1 + events * SQLEventStore.lockedInsertColumns),
            preparedAs: key
        ) { _ in
            let announced: SQLQueryString =
                events == 0
                ? ""
                : """
                , turn AS (SELECT pg_advisory_xact_lock(\(bind: 0)) FROM issued), \
                announced AS (\(SQLEventStore.insertUnderTheLock(
                    SQLStatementText.placeholders(events * SQLEventStore.lockedInsertColumns), after: "turn")))
                """
            let query: SQLQueryString = """
                WITH used AS (UPDATE auth_codes SET used_at = \(bind: 0) WHERE id = \(bind: "") AND used_at IS NULL \
                RETURNING id), \
                issued AS (INSERT INTO tokens (\(unsafeRaw: SQLTokenStore.columns.joined(separator: ", "))) \
                SELECT \(binds: SQLStatementText.placeholders(SQLTokenStore.columns.count)) FROM used \
                RETURNING tokens.id)\(announced) \
                SELECT id FROM issued
                """
            return query
        }
    }
    fileprivate static let exchangeStatement = exchange(events: 0)
    fileprivate static let exchangeAnnouncedStatement = exchange(events: 2)

    package func expireAll(userID: String, at: Date) async throws {
        try await context.run {
            let now = SQLCodec.seconds(at)
            try await db.update("auth_codes").set("expires_at", to: SQLBind(now))
                .where("user_id", .equal, SQLBind(userID)).where("used_at", .is, SQLLiteral.null)
                .where("expires_at", .greaterThan, SQLBind(now)).run()
        }
    }

    /// Every login runs these three; their text is kept (``SQLStatementText``).
    fileprivate static let insertStatement = SQLStatementText(binds: columns.count, preparedAs: Insert.self) { db in
        insertQuery(db)
    }
    /// The insert, also part of ``SQLGrantStore``'s consent statement on PostgreSQL.
    package static func insertQuery(_ db: any SQLDatabase) -> any SQLExpression {
        db.insert(into: "auth_codes").columns(columns).values(SQLStatementText.placeholders(columns.count)).query
    }
    fileprivate static let findByHash = SQLStatementText(binds: 1, preparedAs: FindByHash.self) { db in
        db.select().columns(columns).from("auth_codes").where("code_hash", .equal, 0).query
    }
    fileprivate static let consumeStatement = SQLStatementText(binds: 2, preparedAs: Consume.self) { db in
        db.update("auth_codes").set("used_at", to: 0).where("id", .equal, 0).where("used_at", .is, SQLLiteral.null)
            .returning("id").query
    }

    package static func values(_ code: AuthCodeRecord) throws -> [any Encodable & Sendable] {
        [
            code.id, code.codeHash, code.appID, code.userID, code.redirectURI, code.codeChallenge,
            code.codeChallengeMethod, code.nonce, code.authType, code.authNonce, try SQLCodec.json(code.scopes),
            SQLCodec.seconds(code.createdAt), SQLCodec.seconds(code.expiresAt), SQLCodec.seconds(code.usedAt),
        ]
    }

    /// ``columns`` as a row of ``findByHash`` has them.
    package static let layout = SQLColumnLayout(columns)

    /// Reads the row by position where the driver offers it (PostgreSQL's prepared statement: every code exchange
    /// reads one, and by name each column went through PostgresKit's `Decodable` path), else by name.
    package static func decode(_ row: any SQLRow) throws -> AuthCodeRecord {
        let cells = row.cells(layout)
        try layout.check(cells)
        var r = layout.cursor(cells)
        let code = AuthCodeRecord(
            id: try r.string("id"),
            codeHash: try r.string("code_hash"),
            appID: try r.string("app_id"),
            userID: try r.string("user_id"),
            redirectURI: try r.string("redirect_uri"),
            codeChallenge: try r.optionalString("code_challenge"),
            codeChallengeMethod: try r.optionalString("code_challenge_method"),
            nonce: try r.optionalString("nonce"),
            authType: try r.optionalString("auth_type"),
            authNonce: try r.optionalString("auth_nonce"),
            scopes: try r.list("scopes"),
            createdAt: try r.date("created_at"),
            expiresAt: try r.date("expires_at"),
            usedAt: try r.optionalDate("used_at")
        )
        try r.finish()
        return code
    }
}

/// The names PostgreSQL keeps these statements under (``SQLPreparedKey``).
extension SQLAuthCodeStore {
    fileprivate enum Insert: SQLPreparedKey {
        static let name = "gh_code_insert"
        static var statement: SQLStatementText { SQLAuthCodeStore.insertStatement }
    }
    fileprivate enum FindByHash: SQLPreparedKey {
        static let name = "gh_code_find"
        static var statement: SQLStatementText { SQLAuthCodeStore.findByHash }
    }
    fileprivate enum Consume: SQLPreparedKey {
        static let name = "gh_code_consume"
        static var statement: SQLStatementText { SQLAuthCodeStore.consumeStatement }
    }
    fileprivate enum ExchangeAnnounced: SQLPreparedKey {
        static let name = "gh_code_exchange_announced"
        static var statement: SQLStatementText { SQLAuthCodeStore.exchangeAnnouncedStatement }
    }
    fileprivate enum Exchange: SQLPreparedKey {
        static let name = "gh_code_exchange"
        static var statement: SQLStatementText { SQLAuthCodeStore.exchangeStatement }
    }
}
