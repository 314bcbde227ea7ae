import GatehouseCore
import Foundation
import GatehouseProtocol
import SQLKit

/// `GrantStore` over any `SQLDatabase`: table `grants`, keyed by (app_id, user_id).
///
/// Granted and declined permissions are JSON arrays in TEXT columns.
package struct SQLGrantStore: GrantStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = [
        "app_id", "user_id", "granted", "declined", "created_at", "updated_at", "last_login_at", "default_audience",
    ]

    package func find(appID: String, userID: String) async throws -> GrantRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("grants")
                .where("app_id", .equal, appID).where("user_id", .equal, userID)
                .first().map(Self.decode)
        }
    }

    /// Upserts (`INSERT … ON CONFLICT (app_id, user_id) DO UPDATE`), replacing every field.
    /// Throws `.notFound` when the app or user does not exist.
    package func save(_ grant: GrantRecord) async throws {
        try await context.run {
            try await db.run(Self.upsert.on(db, try Self.values(grant)))
        }
    }

    /// Every login and consent saves a grant; the upsert's text is kept (``SQLStatementText``).
    fileprivate static let upsert = SQLStatementText(binds: columns.count, preparedAs: Upsert.self) { db in
        upsertQuery(db)
    }

    private static func upsertQuery(_ db: any SQLDatabase) -> any SQLExpression {
        db.insert(into: "grants")
            .columns(columns)
            .values(SQLStatementText.placeholders(columns.count))
            .onConflict(with: ["app_id", "user_id"]) { update in
                for column in columns.dropFirst(2) { update.set(excludedValueOf: column) }
                return update
            }
            .query
    }

    /// PostgreSQL only: saves `grant`, inserts `code` and notifies `channel` of `payload` in one statement
    /// (``consentStatement``), committed before it returns. Throws `.conflict` as ``SQLAuthCodeStore/insert(_:)``.
    package func save(_ grant: GrantRecord, storing code: AuthCodeRecord, notifying channel: String, of payload: String)
        async throws
    {
        try await context.run(uniqueConflict: { $0.contains("code_hash") ? "code_hash" : "id" }) {
            let values = try Self.values(grant) + (try SQLAuthCodeStore.values(code)) + [channel, payload]
            _ = try await db.rows(Self.consentStatement.on(db, values))
        }
    }

    /// ``upsert``, ``SQLAuthCodeStore``'s insert and the grant's `pg_notify` as one statement, for PostgreSQL
    /// (SQLite has no `INSERT` inside `WITH`): a consent answered with a code commits in one round trip instead of
    /// `BEGIN`, three statements and `COMMIT`. Both inserts always run; the notification is delivered when the
    /// statement commits. Binds: the grant's, the code's, the channel, the payload.
    fileprivate static let consentStatement = SQLStatementText(
        binds: columns.count + SQLAuthCodeStore.columns.count + 2, preparedAs: Consent.self
    ) { db in
        let query: SQLQueryString = """
            WITH saved AS (\(upsertQuery(db))), code AS (\(SQLAuthCodeStore.insertQuery(db))) \
            SELECT pg_notify(\(bind: ""), \(bind: ""))
            """
        return query
    }

    package func delete(appID: String, userID: String) async throws {
        try await context.run {
            try await db.delete(from: "grants")
                .where("app_id", .equal, appID).where("user_id", .equal, userID)
                .run()
        }
    }

    /// Oldest grant first.
    package func grants(userID: String) async throws -> [GrantRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("grants")
                .where("user_id", .equal, userID)
                .orderBy("created_at").orderBy("app_id")
                .all().map(Self.decode)
        }
    }

    /// Oldest grant first.
    package func grants(appID: String) async throws -> [GrantRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("grants")
                .where("app_id", .equal, appID)
                .orderBy("created_at").orderBy("user_id")
                .all().map(Self.decode)
        }
    }

    package static func values(_ grant: GrantRecord) throws -> [any Encodable & Sendable] {
        [
            grant.appID, grant.userID, try SQLCodec.json(grant.granted), try SQLCodec.json(grant.declined),
            SQLCodec.seconds(grant.createdAt), SQLCodec.seconds(grant.updatedAt), SQLCodec.seconds(grant.lastLoginAt),
            grant.defaultAudience?.rawValue,
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> GrantRecord {
        var r = SQLColumnLayout(columns).cursor(SQLNamedCells(row, names: columns))
        return try decode(&r)
    }

    /// Reads `columns` in their order (``SQLRowCursor`` checks each name against the list).
    package static func decode(_ r: inout SQLRowCursor) throws -> GrantRecord {
        GrantRecord(
            appID: try r.string("app_id"),
            userID: try r.string("user_id"),
            granted: try r.list("granted"),
            declined: try r.list("declined"),
            createdAt: try r.date("created_at"),
            updatedAt: try r.date("updated_at"),
            lastLoginAt: try r.date("last_login_at"),
            // Rows from before migration 5, or with an audience this build does not know, read as none.
            defaultAudience: try r.optionalString("default_audience").flatMap(Audience.init(wireName:))
        )
    }
}

/// The names PostgreSQL keeps these statements under (``SQLPreparedKey``).
extension SQLGrantStore {
    fileprivate enum Upsert: SQLPreparedKey {
        static let name = "gh_grant_upsert"
        static var statement: SQLStatementText { SQLGrantStore.upsert }
    }
    fileprivate enum Consent: SQLPreparedKey {
        static let name = "gh_consent"
        static var statement: SQLStatementText { SQLGrantStore.consentStatement }
    }
}
