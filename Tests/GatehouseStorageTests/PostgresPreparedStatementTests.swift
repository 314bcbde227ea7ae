import Foundation
import PostgresKit
import SQLKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The statements PostgreSQL keeps prepared (``SQLPreparedKey``): prepared once per connection, reused by every
/// later call on it, and answering what the unprepared statements answer (the storage contract suites run the
/// same stores on SQLite, where nothing is prepared).
@Suite("PostgreSQL prepared statements", .timeLimit(.minutes(10)))
struct PostgresPreparedStatementTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Runs `body` with storage over a running one-connection pool on a fresh database, and a plain database on
    /// the same pool (so on the same connection) to look at what it has prepared.
    func withOneConnection(_ body: @escaping @Sendable (Storage, PostgresClientDatabase) async throws -> Void)
        async throws
    {
        let url = try await PostgresTestDatabase.create()
        let client = try PostgresStorage.makeClient(
            url: url, logger: StorageBackends.logger, options: .init(maximumConnections: 1))
        let outcome: Result<Void, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do {
                let storage = try await PostgresStorage.open(
                    url: url, logger: StorageBackends.logger,
                    options: .init(maximumConnections: 1, cachesTokens: false), client: client)
                let db = PostgresClientDatabase(
                    client: client, logger: StorageBackends.logger, leaseTimeout: .seconds(30))
                do {
                    try await body(storage, db)
                } catch {
                    try? await storage.shutdown()
                    throw error
                }
                try await storage.shutdown()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try? await PostgresTestDatabase.drop(url)
        try outcome.get()
    }

    /// How many times each statement prepared on the pool's connection has run, by name.
    func preparedRuns(_ db: PostgresClientDatabase) async throws -> [String: Int] {
        let rows = try await db.raw("SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements")
            .all()
        var runs: [String: Int] = [:]
        for row in rows {
            let name = try row.decode(column: "name", as: String.self)
            #expect(runs[name] == nil, "\(name) is prepared once")
            runs[name] = try row.decode(column: "runs", as: Int.self)
        }
        return runs
    }

    @Test func aPreparedStatementIsPreparedOnceAndReusedByEveryCallOnItsConnection() async throws {
        try await withOneConnection { storage, db in
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            let first = try #require(try await storage.callerRecords.callerRecords(tokenHash: c.token.tokenHash))
            for _ in 0..<250 {
                let again = try #require(try await storage.callerRecords.callerRecords(tokenHash: c.token.tokenHash))
                #expect(again.token == first.token && again.app == first.app && again.user == first.user)
                #expect(again.grant == first.grant && again.scopedID == first.scopedID)
            }
            #expect(try await storage.callerRecords.callerRecords(tokenHash: "no-such-hash") == nil)
            #expect(first.token == (try await storage.tokens.find(tokenHash: c.token.tokenHash)))
            #expect(
                first.app == (try await storage.apps.find(id: c.app.id)) && first.scopedID != nil && first.grant != nil)
            let runs = try await preparedRuns(db)
            #expect(runs["gh_caller"] == 252)
            #expect(runs["gh_token_insert"] == 1)
            #expect(runs["gh_token_find"] == 1)
            #expect(runs["gh_grant_upsert"] == 1)
        }
    }

    /// The code exchange and a consent with a code are one prepared statement each, not the statements of a
    /// transaction (``CombinedWriteTests`` checks what they write, on both backends).
    @Test func theCodeExchangeAndTheConsentAreOneStatementEach() async throws {
        try await withOneConnection { storage, db in
            try await storage.apps.create(Fixture.app("1"))
            try await storage.users.create(Fixture.user("u1"))
            let grant = GrantRecord(
                appID: "1", userID: "u1", granted: ["public_profile"], declined: [], createdAt: TestTime.at(1),
                updatedAt: TestTime.at(1), lastLoginAt: TestTime.at(1))
            for n in 1...3 {
                try await storage.saveGrant(grant, storing: Fixture.code("c\(n)", app: "1", user: "u1"))
                #expect(
                    try await storage.consumeCode(
                        id: "c\(n)", at: TestTime.at(2),
                        storing: Fixture.token("t\(n)", app: "1", user: "u1", codeID: "c\(n)"), recording: { _ in }))
            }
            #expect(
                try await !storage.consumeCode(
                    id: "c1", at: TestTime.at(3), storing: Fixture.token("t9", app: "1", user: "u1"),
                    recording: { _ in }))
            // With the token endpoint's two events (app and person NULL in one, set in the other): prepared too.
            try await storage.saveGrant(grant, storing: Fixture.code("c4", app: "1", user: "u1"))
            let events = [
                GatehouseEvent(
                    id: "e1", type: .codeExchanged, time: TestTime.at(2), appID: "1", personID: "u1", node: "n",
                    details: ["code_id": "c4"]),
                GatehouseEvent(
                    id: "e2", type: .tokenIssued, time: TestTime.at(2), appID: nil, personID: nil, node: "n",
                    details: [:]),
            ]
            #expect(
                try await storage.writes?.consumeCode(
                    id: "c4", at: TestTime.at(2), storing: Fixture.token("t4", app: "1", user: "u1", codeID: "c4"),
                    storingEvents: events) == true)
            #expect(try await storage.events?.list(EventQuery(limit: 5)).map(\.id) == ["e1", "e2"])
            let runs = try await preparedRuns(db)
            #expect(runs["gh_consent"] == 4)
            #expect(runs["gh_code_exchange"] == 4)
            #expect(runs["gh_code_exchange_announced"] == 1)
            #expect(runs["gh_grant_upsert"] == nil && runs["gh_code_insert"] == nil)
            #expect(runs["gh_code_consume"] == nil && runs["gh_token_insert"] == nil)
        }
    }

    /// A prepared statement's parameter types are fixed by its first call on a connection: a first call that binds
    /// NULL must not leave a later non-NULL value (or the other way round) unreadable.
    @Test func nullsAndValuesShareOnePreparedStatementInEitherOrder() async throws {
        try await withOneConnection { storage, db in
            try await storage.apps.create(Fixture.app("1"))
            try await storage.users.create(Fixture.user("u1"))
            try await storage.codes.insert(Fixture.code("c1", app: "1", user: "u1"))
            let bare = Fixture.token("t-bare", app: "1", user: nil, expiresAt: nil, kind: .app)
            var full = Fixture.token("t-full", app: "1", user: "u1", expiresAt: TestTime.at(7200), codeID: "c1")
            full.authType = "rerequest"
            full.authNonce = "n-1"
            let again = Fixture.token("t-again", app: "1", user: nil, expiresAt: nil, kind: .app)
            for token in [bare, full, again] {
                try await storage.tokens.insert(token)
                #expect(try await storage.tokens.find(tokenHash: token.tokenHash) == token)
            }
            // The code's consumption binds a date after the insert bound NULL for `used_at`.
            #expect(try await storage.codes.consume(id: "c1", at: TestTime.at(30)))
            #expect(try await !storage.codes.consume(id: "c1", at: TestTime.at(31)))
            #expect(try await storage.codes.find(codeHash: "codehash-c1")?.usedAt == TestTime.at(30))
            let runs = try await preparedRuns(db)
            #expect(runs["gh_token_insert"] == 3)
            #expect(runs["gh_code_consume"] == 2)
        }
    }

    /// A prepared row's two views, its cells by position (the caller's row) and PostgresKit's row by name (every
    /// other reader; built by the row's first read by name, then kept), read the same, in either order, on every
    /// read and from several tasks at once.
    @Test func aPreparedRowReadsTheSameByPositionAndByNameInEitherOrder() async throws {
        try await withOneConnection { storage, db in
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            let expected = try #require(try await storage.callerRecords.callerRecords(tokenHash: c.token.tokenHash))
            let layout = SQLCallerRecordStore.layout
            func row() async throws -> any SQLRow {
                try #require(try await db.rows(SQLCallerRecordStore.query.on(db, [c.token.tokenHash])).first)
            }
            @Sendable func byName(_ row: any SQLRow) throws -> CallerRecords {
                try SQLCallerRecordStore.decode(cells: SQLNamedCells(row, names: layout.selected))
            }
            let positionFirst = try await row()
            #expect(positionFirst is any SQLPositionalRow)
            var reads = [try SQLCallerRecordStore.decode(positionFirst), try byName(positionFirst)]
            reads.append(try byName(positionFirst))
            #expect(positionFirst.allColumns == layout.selected)
            let nameFirst = try await row()
            reads += [try byName(nameFirst), try SQLCallerRecordStore.decode(nameFirst), try byName(nameFirst)]
            let shared = try await row()
            reads += try await withThrowingTaskGroup(of: CallerRecords.self) { group in
                for _ in 0..<8 { group.addTask { try byName(shared) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reads.count == 14)
            for read in reads {
                #expect(read.token == expected.token && read.app == expected.app && read.user == expected.user)
                #expect(read.grant == expected.grant && read.scopedID == expected.scopedID)
            }
        }
    }
}
