import Foundation
import SQLKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport
import SQLiteKit
import SQLiteNIO

/// The person's account state (migration 12) on both backends: kept, replaced by `update`, read by the joined
/// caller and session statements, and `active` for people who existed before the migration.
@Suite struct AccountStateStorageTests {
    @Test func everyStateRoundTripsThroughCreateUpdateAndTheJoinedReads() async throws {
        try await withEachBackend { storage in
            try await storage.users.create(Fixture.user("1"))
            #expect(try await storage.users.find(id: "1")?.accountState == .active)
            for state in AccountState.allCases {
                var user = try #require(try await storage.users.find(id: "1"))
                user.accountState = state
                try await storage.users.update(user)
                #expect(try await storage.users.find(id: "1") == user)
                #expect(try await storage.users.list().first?.accountState == state)
            }
            var created = Fixture.user("2", email: "two@example.com")
            created.accountState = .checkpointed
            try await storage.users.create(created)
            #expect(try await storage.users.find(email: "two@example.com")?.accountState == .checkpointed)
        }
    }

    @Test func theCallerAndSessionStatementsReadTheState() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("100000000000001"))
            var user = Fixture.user("1")
            user.accountState = .unconfirmed
            try await storage.users.create(user)
            let token = TokenRecord(
                id: "t1", tokenHash: "hash-1", kind: .user, appID: "100000000000001", userID: "1",
                issuedAt: TestTime.at(0),
                expiresAt: TestTime.at(3600), origin: "test")
            try await storage.tokens.insert(token)
            let session = BrowserSessionRecord(
                id: "s1", secretHash: "secret-1", userID: "1", createdAt: TestTime.at(0), expiresAt: TestTime.at(3600),
                authenticatedAt: TestTime.at(0))
            try await storage.sessions.insert(session)
            do {
                let joined = storage.callerRecords
                #expect(try await joined.callerRecords(tokenHash: "hash-1")?.user?.accountState == .unconfirmed)
            }
            do {
                let joined = storage.sessionRecords
                #expect(
                    try await joined.sessionRecords(secretHash: "secret-1", appID: "100000000000001")?.user?
                        .accountState == .unconfirmed)
            }
        }
    }

    /// A database from before migration 12: its people read as active, and the column takes every state after.
    @Test func migrationTwelveMakesEveryoneActive() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-v12-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: StorageBackends.logger)
        let db = connection.sql()
        try await SQLMigrator.migrate(db, migrations: SQLMigrator.all.filter { $0.version < 12 })
        let user = Fixture.user("1")
        // Only the columns schema 11 has: later migrations add `account_state`, `locale`, ….
        let schema11 = Set(
            try await db.raw("PRAGMA table_info(users)").all().map { try $0.decode(column: "name", as: String.self) })
        let kept = zip(SQLUserStore.columns, SQLUserStore.values(user)).filter { schema11.contains($0.0) }
        try await db.insert(into: "users").columns(kept.map(\.0)).values(kept.map(\.1)).run()
        try await SQLStorage.migrate(db)
        try await SQLStorage.migrate(db)
        #expect(try await SQLStorage.appliedMigrations(db) == SQLMigrator.all.map(\.version))
        let store = SQLStorage.make(database: db)
        #expect(try await store.users.find(id: "1")?.accountState == .active)
        var changed = try #require(try await store.users.find(id: "1"))
        changed.accountState = .disabled
        try await store.users.update(changed)
        #expect(try await store.users.find(id: "1")?.accountState == .disabled)
        try await connection.close()
    }

    /// An export written before account states existed imports with everyone active.
    @Test func anOlderExportDecodesAsActive() throws {
        let encoder = JSONEncoder()
        var object = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(Fixture.user("1"))) as? [String: Any])
        #expect(object["accountState"] as? String == "active")
        object["accountState"] = nil
        let decoded = try JSONDecoder().decode(UserRecord.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(decoded == Fixture.user("1"))
    }
}
