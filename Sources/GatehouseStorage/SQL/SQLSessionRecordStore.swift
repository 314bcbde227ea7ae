import GatehouseCore
import Foundation
import SQLKit

/// `SessionRecordStore` over any `SQLDatabase`: `browser_sessions` left-joined with `users`, and with `grants`
/// `app_roles` and `app_scoped_ids` for one app, so the login dialog's reads cost one round trip instead of five.
package struct SQLSessionRecordStore: SessionRecordStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    /// The select list, every column aliased with its table's prefix (`b_`, `u_`, `g_`, `r_`, `s_`).
    package static let selectList: String = {
        var columns = SQLBrowserSessionStore.columns.map { "b.\($0) AS b_\($0)" }
        columns += SQLUserStore.columns.map { "u.\($0) AS u_\($0)" }
        columns += SQLGrantStore.columns.map { "g.\($0) AS g_\($0)" }
        columns.append("r.role AS r_role")
        columns.append("s.scoped_id AS s_scoped_id")
        return columns.joined(separator: ", ")
    }()

    package func sessionRecords(secretHash: String, appID: String) async throws -> SessionRecords? {
        try await context.run {
            let rows = try await context.db.rows(Self.query.on(context.db, [appID, appID, appID, secretHash]))
            return try rows.first.map(Self.decode)
        }
    }

    /// Every dialog and consent runs it, so its text is kept (``SQLStatementText``); binds: the app id three
    /// times, then the secret hash.
    fileprivate static let query = SQLStatementText(binds: 4, preparedAs: Query.self) { _ in
        let query: SQLQueryString = """
            SELECT \(unsafeRaw: selectList) FROM browser_sessions b \
            LEFT JOIN users u ON u.id = b.user_id \
            LEFT JOIN grants g ON g.app_id = \(bind: "") AND g.user_id = b.user_id \
            LEFT JOIN app_roles r ON r.app_id = \(bind: "") AND r.user_id = b.user_id \
            LEFT JOIN app_scoped_ids s ON s.app_id = \(bind: "") AND s.user_id = b.user_id \
            WHERE b.secret_hash = \(bind: "")
            """
        return query
    }

    package static func decode(_ row: any SQLRow) throws -> SessionRecords {
        let session = try SQLBrowserSessionStore.decode(PrefixedRow(row, "b_"))
        let user = try row.decodeNil(column: "u_id") ? nil : try SQLUserStore.decode(PrefixedRow(row, "u_"))
        let grant = try row.decodeNil(column: "g_app_id") ? nil : try SQLGrantStore.decode(PrefixedRow(row, "g_"))
        let role = try row.decode(column: "r_role", as: String?.self).flatMap(AppRole.init(rawValue:))
        let scopedID = try row.decode(column: "s_scoped_id", as: String?.self)
        return SessionRecords(session: session, user: user, grant: grant, role: role, scopedID: scopedID)
    }
}

/// The names PostgreSQL keeps these statements under (``SQLPreparedKey``).
extension SQLSessionRecordStore {
    fileprivate enum Query: SQLPreparedKey {
        static let name = "gh_session"
        static var statement: SQLStatementText { SQLSessionRecordStore.query }
    }
}
