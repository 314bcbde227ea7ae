import GatehouseCore
import Foundation
import SQLKit

/// `CallerRecordStore` over any `SQLDatabase`: `tokens` left-joined with `apps`, `users`, `grants` and
/// `app_scoped_ids` on the token's app and person, so a miss costs one round trip instead of five.
package struct SQLCallerRecordStore: CallerRecordStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    /// The select list, every column aliased with its table's prefix (`t_`, `a_`, `u_`, `g_`, `s_`). The
    /// picture's bytes are not read: `u_picture` is NULL and `u_has_picture` says whether there is one.
    package static let selectList: String = {
        var columns = SQLTokenStore.columns.map { "t.\($0) AS t_\($0)" }
        columns += SQLAppStore.columns.map { "a.\($0) AS a_\($0)" }
        columns += SQLUserStore.columns.map { $0 == "picture" ? "NULL AS u_picture" : "u.\($0) AS u_\($0)" }
        columns.append("CASE WHEN u.picture IS NULL THEN 0 ELSE 1 END AS u_has_picture")
        columns += SQLGrantStore.columns.map { "g.\($0) AS g_\($0)" }
        columns.append("s.scoped_id AS s_scoped_id")
        return columns.joined(separator: ", ")
    }()

    package func callerRecords(tokenHash: String) async throws -> CallerRecords? {
        try await context.run {
            // SQLite: the kept statement on this thread (``SQLImmediateReads``); else, or when it declines, as usual.
            if let now = (context.db as? any SQLImmediateReads)?.rowsNow(Self.query, [tokenHash]) {
                return try now.first.map(Self.decode)
            }
            let rows = try await context.db.rows(Self.query.on(context.db, [tokenHash]))
            return try rows.first.map(Self.decode)
        }
    }

    /// Every cache miss runs it, so its text is kept (``SQLStatementText``): no serializing, and the SQLite
    /// router reads its kind instead of searching the text.
    fileprivate static let query = SQLStatementText(binds: 1, preparedAs: Query.self) { _ in
        let query: SQLQueryString = """
            SELECT \(unsafeRaw: selectList) FROM tokens t \
            LEFT JOIN apps a ON a.id = t.app_id \
            LEFT JOIN users u ON u.id = t.user_id \
            LEFT JOIN grants g ON g.app_id = t.app_id AND g.user_id = t.user_id \
            LEFT JOIN app_scoped_ids s ON s.app_id = t.app_id AND s.user_id = t.user_id \
            WHERE t.token_hash = \(bind: "")
            """
        return query
    }

    package static func decode(_ row: any SQLRow) throws -> CallerRecords {
        let token = try SQLTokenStore.decode(PrefixedRow(row, "t_"))
        let app = try row.decodeNil(column: "a_id") ? nil : try SQLAppStore.decode(PrefixedRow(row, "a_"))
        var user = try row.decodeNil(column: "u_id") ? nil : try SQLUserStore.decode(PrefixedRow(row, "u_"))
        if user != nil, try row.decode(column: "u_has_picture", as: Int.self) != 0 { user?.picture = Data() }
        let grant = try row.decodeNil(column: "g_app_id") ? nil : try SQLGrantStore.decode(PrefixedRow(row, "g_"))
        let scopedID = try row.decode(column: "s_scoped_id", as: String?.self)
        return CallerRecords(token: token, app: app, user: user, grant: grant, scopedID: scopedID)
    }
}

/// One table's columns of a joined row, read by their unprefixed names so each store's decoder applies.
package struct PrefixedRow: SQLRow {
    package let base: any SQLRow
    package let prefix: String

    package init(_ base: any SQLRow, _ prefix: String) {
        self.base = base
        self.prefix = prefix
    }

    package var allColumns: [String] {
        base.allColumns.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    package func contains(column: String) -> Bool { base.contains(column: prefix + column) }
    package func decodeNil(column: String) throws -> Bool { try base.decodeNil(column: prefix + column) }
    package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        try base.decode(column: prefix + column, as: type)
    }
}

/// The names PostgreSQL keeps these statements under (``SQLPreparedKey``).
extension SQLCallerRecordStore {
    fileprivate enum Query: SQLPreparedKey {
        static let name = "gh_caller"
        static var statement: SQLStatementText { SQLCallerRecordStore.query }
    }
}
