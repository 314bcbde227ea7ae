import Foundation
import SQLKit
import Testing
import GatehouseCore
import GatehouseProtocol
import GatehouseStorage
import GatehouseTestSupport

/// Issue 43 items 2-3: the caller's row is read by position (SQLite's kept statement, PostgreSQL's prepared one)
/// from one column list, and a list and its decoder that disagree fail instead of decoding into the wrong field.
@Suite("The caller's row by position")
struct CallerRowLayoutTests {
    /// A caller whose every column holds a value of its own: no NULL, no default, no two dates or lists alike.
    struct EveryColumn {
        let app: AppRecord
        let user: UserRecord
        let grant: GrantRecord
        let token: TokenRecord
        let scopedID = "scoped-every-column"

        init() {
            app = AppRecord(
                id: "900000000000077", secret: "app-secret-77", clientToken: "client-token-77", name: "Every Column",
                redirectURIs: ["https://every.example/cb", "https://every.example/cb2"], requireAppSecret: true,
                requirePKCE: true, approvedPermissions: ["user_birthday", "user_location"],
                deauthorizeCallbackURL: "https://every.example/deauthorize",
                dataDeletionCallbackURL: "https://every.example/delete", createdAt: TestTime.at(1),
                jsSDKDomains: ["https://shop.every.example"])
            var user = UserRecord(
                id: "u-every", email: "Every@Example.com", passwordHash: "$2b$12$every-hash", firstName: "Evelyn",
                lastName: "Column", picture: Data(repeating: 7, count: 32), testUserOfAppID: "900000000000077",
                passwordChangedAt: TestTime.at(2), createdAt: TestTime.at(3), accountState: .checkpointed)
            for field in UserFieldValue.editable {
                let name = field.field.name
                field.assign("\(name)-value", to: &user) { Place(id: "place-\(name)", name: "\($0) place") }
            }
            self.user = user
            grant = GrantRecord(
                appID: app.id, userID: user.id, granted: ["public_profile", "email"], declined: ["user_friends"],
                createdAt: TestTime.at(4), updatedAt: TestTime.at(5), lastLoginAt: TestTime.at(6),
                defaultAudience: .friends)
            token = TokenRecord(
                id: "t-every", tokenHash: "hash-every", kind: .user, appID: app.id, userID: user.id,
                issuedAt: TestTime.at(7), expiresAt: TestTime.at(8), revokedAt: TestTime.at(9), codeID: "code-every",
                authType: "rerequest", authNonce: "nonce-every", origin: "dialog")
        }

        func write(to storage: Storage) async throws {
            try await storage.apps.create(app)
            try await storage.users.create(user)
            try await storage.grants.save(grant)
            try await storage.users.assignScopedID(appID: app.id, userID: user.id, scopedID: scopedID)
            try await storage.tokens.insert(token)
        }
    }

    @Test func everyFieldOfTheCallersRecordsRoundTripsOnEachBackend() async throws {
        try await withEachBackend { storage in
            let every = EveryColumn()
            try await every.write(to: storage)
            let records = try #require(try await storage.callerRecords.callerRecords(tokenHash: every.token.tokenHash))
            #expect(records.token == every.token)
            #expect(records.app == every.app)
            var user = every.user
            user.picture = Data()
            #expect(records.user == user, "everything but the picture's bytes, whose presence reads as empty")
            #expect(records.grant == every.grant)
            #expect(records.scopedID == every.scopedID)
            // Every column held a value: a field the decoder left out would read as nil here.
            #expect(Self.nilProperties(of: Fixture.token("t", app: "a", user: nil) as Any?).contains("userID"))
            for record in [records.token, records.app, records.user, records.grant] as [Any?] {
                #expect(Self.nilProperties(of: record as Any) == [], "\(type(of: record))")
            }
        }
    }

    /// A decoder reads its store's list in order: a column inserted into or moved in the list without the
    /// decoder following throws at the read where they part, on every kind of row.
    @Test func aColumnAddedToOrMovedInAListFailsInsteadOfMisdecoding() throws {
        let token = EveryColumn().token
        let values = SQLTokenStore.values(token).map(Self.stored)
        let columns = SQLTokenStore.columns
        var row = SQLiteKeptRow(columns: SQLiteKeptColumns(columns), values: values)
        var cursor = SQLColumnLayout(columns).cursor(row)
        #expect(try SQLTokenStore.decode(&cursor) == token, "the list as it is")
        try cursor.finish()

        var added = columns
        added.insert("added_column", at: 3)
        row = SQLiteKeptRow(
            columns: SQLiteKeptColumns(added), values: Array(values[..<3]) + [.text("x")] + values[3...])
        cursor = SQLColumnLayout(added).cursor(row)
        #expect(throws: SQLColumnOrderError.self) { try SQLTokenStore.decode(&cursor) }

        var moved = columns
        moved.swapAt(6, 7)  // expires_at and revoked_at: both dates, so only the names tell them apart
        row = SQLiteKeptRow(columns: SQLiteKeptColumns(moved), values: values)
        cursor = SQLColumnLayout(moved).cursor(row)
        let error = #expect(throws: SQLColumnOrderError.self) { try SQLTokenStore.decode(&cursor) }
        #expect(error?.description == "a decoder reads expires_at at position 6, where the layout lists revoked_at")
    }

    /// The caller's layout checks the row the database returned: a column more, or two selected in another
    /// order, is refused before any field is read.
    @Test func theCallersLayoutRefusesARowWithOtherColumns() throws {
        let layout = SQLCallerRecordStore.layout
        let values = [SQLiteKeptValue](repeating: .null, count: layout.selected.count)
        let extra = SQLiteKeptRow(columns: SQLiteKeptColumns(layout.selected + ["extra"]), values: values + [.null])
        let count = #expect(throws: SQLColumnOrderError.self) { try SQLCallerRecordStore.decode(cells: extra) }
        #expect(count?.description == "the row has \(values.count + 1) columns where the layout lists \(values.count)")

        var swapped = layout.selected
        swapped.swapAt(1, 2)
        let moved = SQLiteKeptRow(columns: SQLiteKeptColumns(swapped), values: values)
        let order = #expect(throws: SQLColumnOrderError.self) { try SQLCallerRecordStore.decode(cells: moved) }
        #expect(order?.description == "column 1 is \(swapped[1]) where the layout lists \(layout.selected[1])")
    }

    /// On a migrated SQLite file, the kept statement's row is read by position, and the same statement with one
    /// more column fails loudly through the store's decoder.
    @Test func aKeptSQLiteRowIsReadByPositionAndCheckedAgainstTheLayout() async throws {
        let backend = StorageBackends.sqlite(fromTemplate: true)
        let storage = try await backend.openWithoutFeed()
        let every = EveryColumn()
        try await every.write(to: storage)
        let store = try #require(storage.callerRecords as? SQLCallerRecordStore)
        let routing = try #require(store.context.db as? SQLiteReadRouting)
        func statement(_ extra: String) -> SQLStatementText {
            SQLStatementText(binds: 1) { _ in
                SQLQueryString(
                    """
                    SELECT \(unsafeRaw: SQLCallerRecordStore.selectList)\(unsafeRaw: extra) FROM tokens t \
                    LEFT JOIN apps a ON a.id = t.app_id LEFT JOIN users u ON u.id = t.user_id \
                    LEFT JOIN grants g ON g.app_id = t.app_id AND g.user_id = t.user_id \
                    LEFT JOIN app_scoped_ids s ON s.app_id = t.app_id AND s.user_id = t.user_id \
                    WHERE t.token_hash = \(bind: "")
                    """)
            }
        }
        let row = try #require(routing.rowsNow(statement(""), [every.token.tokenHash])?.first)
        #expect(row is any SQLPositionalRow)
        #expect(try SQLCallerRecordStore.decode(row).token == every.token)
        let longer = try #require(routing.rowsNow(statement(", 1 AS extra"), [every.token.tokenHash])?.first)
        #expect(throws: SQLColumnOrderError.self) { try SQLCallerRecordStore.decode(longer) }
        try await storage.shutdown()
        try await backend.cleanup()
    }

    /// A layout checks a statement's columns once where its text fixes them (a PostgreSQL prepared statement) and
    /// trusts its later rows; a statement selecting the same columns in another order never passes, so it is
    /// refused on every read, before and after the store's own statement has passed. On SQLite every kept row is
    /// checked.
    @Test func aStatementSelectingTheColumnsInAnotherOrderIsRefusedOnEveryRead() async throws {
        try await withEachBackend { storage in
            let every = EveryColumn()
            try await every.write(to: storage)
            let store = try #require(storage.callerRecords as? SQLCallerRecordStore)
            let db = store.context.db
            /// The first row of `statement` as the store reads its own: kept on SQLite, prepared on PostgreSQL.
            func row(_ statement: SQLStatementText) async throws -> any SQLRow {
                if let now = (db as? any SQLImmediateReads)?.rowsNow(statement, [every.token.tokenHash]) {
                    return try #require(now.first)
                }
                return try #require(try await db.rows(statement.on(db, [every.token.tokenHash])).first)
            }
            let selected = SQLCallerRecordStore.layout.selected
            let refusal = "column 1 is \(selected[2]) where the layout lists \(selected[1])"
            for _ in 0..<2 {
                let moved = try await row(SwappedCallerQuery.statement)
                let error = #expect(throws: SQLColumnOrderError.self) { try SQLCallerRecordStore.decode(moved) }
                #expect(error?.description == refusal)
            }
            for _ in 0..<2 {
                #expect(try SQLCallerRecordStore.decode(try await row(SQLCallerRecordStore.query)).token == every.token)
            }
            let moved = try await row(SwappedCallerQuery.statement)
            let error = #expect(throws: SQLColumnOrderError.self) { try SQLCallerRecordStore.decode(moved) }
            #expect(error?.description == refusal, "the store's statement passing does not pass another")

            // What the layout remembers: PostgreSQL's prepared rows name their statement, SQLite's kept rows none.
            let own = try #require(try await row(SQLCallerRecordStore.query) as? any SQLPositionalRow)
            let other = try #require(moved as? any SQLPositionalRow)
            if db is any SQLImmediateReads {
                #expect(own.cells.columnsFixedBy == nil && other.cells.columnsFixedBy == nil)
            } else {
                #expect(own.cells.columnsFixedBy != nil && other.cells.columnsFixedBy != nil)
                #expect(own.cells.columnsFixedBy != other.cells.columnsFixedBy)
            }
        }
    }

    /// A value as SQLite stores what a store binds.
    static func stored(_ value: any Encodable & Sendable) -> SQLiteKeptValue {
        switch value {
        case let text as String: .text(text)
        case let number as Int64: .integer(number)
        case let number as Int: .integer(Int64(number))
        case let flag as Bool: .integer(flag ? 1 : 0)
        case let data as Data: .blob(data)
        default: .null
        }
    }

    /// The names of `value`'s optional stored properties that are nil.
    static func nilProperties(of value: Any) -> [String] {
        var nils: [String] = []
        var subject: Any = value
        if let optional = Mirror(reflecting: value).children.first, Mirror(reflecting: value).displayStyle == .optional
        {
            subject = optional.value
        }
        for child in Mirror(reflecting: subject).children {
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional, mirror.children.isEmpty { nils.append(child.label ?? "?") }
        }
        return nils
    }
}

/// The caller's statement with its second and third columns (`t_token_hash` and `t_kind`, both text) swapped:
/// only the names tell them apart. Prepared on PostgreSQL under a name of its own, as a store's statement is.
private enum SwappedCallerQuery: SQLPreparedKey {
    static let name = "gh_test_caller_swapped"
    static let statement = SQLStatementText(binds: 1, preparedAs: SwappedCallerQuery.self) { _ in
        var columns = SQLCallerRecordStore.selectList.components(separatedBy: ", ")
        columns.swapAt(1, 2)
        return SQLQueryString(
            """
            SELECT \(unsafeRaw: columns.joined(separator: ", ")) FROM tokens t \
            LEFT JOIN apps a ON a.id = t.app_id LEFT JOIN users u ON u.id = t.user_id \
            LEFT JOIN grants g ON g.app_id = t.app_id AND g.user_id = t.user_id \
            LEFT JOIN app_scoped_ids s ON s.app_id = t.app_id AND s.user_id = t.user_id \
            WHERE t.token_hash = \(bind: "")
            """)
    }
}
