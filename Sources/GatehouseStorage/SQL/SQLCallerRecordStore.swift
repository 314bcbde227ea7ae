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

    /// The row's columns in SELECT order, each store's list in turn, every column aliased with its table's
    /// prefix (`t_`, `a_`, `u_`, `g_`, `s_`). The picture's bytes are not read: `u_picture` is NULL and
    /// `u_has_picture` says whether there is one. The select list and the layout the decoders read are both
    /// built from it, so a column added to a store's list is selected and read at the same position.
    private static let selected: [(expression: String, alias: String, name: String)] = {
        func table(_ prefix: String, _ columns: [String]) -> [(expression: String, alias: String, name: String)] {
            columns.map { ("\(prefix).\($0)", "\(prefix)_\($0)", $0) }
        }
        var columns = table("t", SQLTokenStore.columns) + table("a", SQLAppStore.columns)
        columns += table("u", SQLUserStore.columns).map { $0.name == "picture" ? ("NULL", $0.alias, $0.name) : $0 }
        columns.append(("CASE WHEN u.picture IS NULL THEN 0 ELSE 1 END", "u_has_picture", "has_picture"))
        columns += table("g", SQLGrantStore.columns)
        columns.append(("s.scoped_id", "s_scoped_id", "scoped_id"))
        return columns
    }()

    package static let selectList = selected.map { "\($0.expression) AS \($0.alias)" }.joined(separator: ", ")

    /// What the row calls each column and what the decoders read there (``SQLRowCursor``).
    package static let layout = SQLColumnLayout(selected: selected.map(\.alias), names: selected.map(\.name))

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
    package static let query = SQLStatementText(binds: 1, preparedAs: Query.self) { _ in
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

    /// Reads the row by position where the driver offers it (SQLite's kept statement, PostgreSQL's prepared
    /// one), else by the layout's names; one decoder either way.
    package static func decode(_ row: any SQLRow) throws -> CallerRecords {
        try decode(cells: row.cells(layout))
    }

    /// Throws ``SQLColumnOrderError`` when the row's columns are not the layout's, in its order, or a store's
    /// decoder reads its columns in another order than its list.
    package static func decode(cells: any SQLRowCells) throws -> CallerRecords {
        try layout.check(cells)
        var r = layout.cursor(cells)
        let token = try SQLTokenStore.decode(&r)
        let app = try r.skipMissing(SQLAppStore.columns) ? nil : try SQLAppStore.decode(&r)
        var user = try r.skipMissing(SQLUserStore.columns) ? nil : try SQLUserStore.decode(&r)
        if try r.integer("has_picture") != 0 { user?.picture = Data() }
        let grant = try r.skipMissing(SQLGrantStore.columns) ? nil : try SQLGrantStore.decode(&r)
        let scopedID = try r.optionalString("scoped_id")
        try r.finish()
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
