import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseStorage
import SQLKit
import Testing
import GatehouseTestSupport
import SQLiteKit
import SQLiteNIO

@Suite struct StorageSocialContractTests {
    static func seed(_ storage: Storage) async throws {
        try await storage.apps.create(Fixture.app("100000000000001"))
        try await storage.apps.create(Fixture.app("100000000000002"))
        for id in ["1", "2", "3"] { try await storage.users.create(Fixture.user(id)) }
    }

    static func post(
        _ id: String, app: String = "100000000000001", author: String = "1", audience: Audience = .friends,
        at: TimeInterval = 0
    ) -> PostRecord {
        PostRecord(
            id: id, appID: app, authorID: author, message: "hello \(id)", link: "https://example.com/\(id)", name: nil,
            caption: "c",
            description: nil, picture: nil, audience: audience, createdAt: TestTime.at(at))
    }

    @Test func postsRoundTripNewestFirstAndDelete() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            let a = Self.post("11", audience: .onlyMe), b = Self.post("12", audience: .everyone, at: 5),
                c = Self.post("13", app: "100000000000002", at: 9)
            for p in [a, b, c] { try await storage.posts.insert(p) }
            #expect(try await storage.posts.find(id: "11") == a)
            #expect(try await storage.posts.find(id: "99") == nil)
            #expect(try await storage.posts.posts(authorID: "1", limit: 10, offset: 0) == [c, b, a])
            #expect(try await storage.posts.posts(authorID: "1", limit: 1, offset: 1) == [b])
            #expect(try await storage.posts.posts(appID: "100000000000001", limit: 10) == [b, a])
            await #expect(throws: StorageError.conflict("post id")) { try await storage.posts.insert(a) }
            await #expect(throws: StorageError.notFound) {
                try await storage.posts.insert(Self.post("14", author: "404"))
            }
            try await storage.posts.delete(id: "12")
            #expect(try await storage.posts.find(id: "12") == nil)
            // A person's deletion takes their posts with them.
            try await storage.users.delete(id: "1")
            #expect(try await storage.posts.find(id: "11") == nil)
        }
    }

    @Test func appRequestsAreOneRowPerRecipient() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            func row(_ request: String, to: String, app: String = "100000000000001", at: TimeInterval = 0)
                -> AppRequestRecord
            {
                AppRequestRecord(
                    requestID: request, appID: app, senderID: "1", recipientID: to, message: "join", data: "lvl=3",
                    title: nil, createdAt: TestTime.at(at))
            }
            let r2 = row("500", to: "2"), r3 = row("500", to: "3"), later = row("501", to: "2", at: 10),
                other = row("502", to: "2", app: "100000000000002")
            try await storage.requests.insert([r2, r3])
            try await storage.requests.insert([later, other])
            try await storage.requests.insert([])
            #expect(try await storage.requests.recipients(requestID: "500") == [r2, r3])
            #expect(try await storage.requests.find(requestID: "500", recipientID: "3") == r3)
            #expect(try await storage.requests.requests(appID: "100000000000001", recipientID: "2") == [later, r2])
            #expect(try await storage.requests.requests(appID: "100000000000001", limit: 2) == [later, r3])
            await #expect(throws: StorageError.conflict("request recipient")) {
                try await storage.requests.insert([r2])
            }
            try await storage.requests.delete(requestID: "500", recipientID: "2")
            #expect(try await storage.requests.recipients(requestID: "500") == [r3])
        }
    }

    @Test func appRequestsKeepTheirNotificationAndAcceptance() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            var request = AppRequestRecord(
                requestID: "600", appID: "100000000000001", senderID: "1", recipientID: "2", message: "invites you",
                createdAt: TestTime.at(0), notificationText: "Check this out")
            try await storage.requests.insert([request])
            #expect(try await storage.requests.find(requestID: "600", recipientID: "2") == request)
            #expect(try await storage.requests.accept(requestID: "600", recipientID: "2", at: TestTime.at(30)))
            #expect(try await storage.requests.accept(requestID: "600", recipientID: "3", at: TestTime.at(30)) == false)
            request.acceptedAt = TestTime.at(30)
            #expect(try await storage.requests.find(requestID: "600", recipientID: "2") == request)
            #expect(try await storage.requests.requests(appID: "100000000000001", recipientID: "2") == [request])
        }
    }

    @Test func grantsKeepTheirAudience() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            var grant = Fixture.grant(
                app: "100000000000001", user: "1", granted: ["public_profile", "publish_actions"])
            grant.defaultAudience = .onlyMe
            try await storage.grants.save(grant)
            #expect(try await storage.grants.find(appID: "100000000000001", userID: "1")?.defaultAudience == .onlyMe)
            grant.defaultAudience = nil
            try await storage.grants.save(grant)
            #expect(try await storage.grants.find(appID: "100000000000001", userID: "1")?.defaultAudience == nil)
        }
    }

    /// A database from before migration 5 keeps its grants; they read with no audience.
    @Test func migrationFiveUpgradesAnOlderDatabase() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-v5-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: StorageBackends.logger)
        let db = connection.sql()
        try await SQLMigrator.migrate(
            db, migrations: [Migration01InitialSchema.migration, Migration02SigningKeys.migration])
        let old = SQLStorage.make(database: db)
        // The app and user rows as schema 2 holds them: today's stores also write `require_pkce` (migration 9),
        // `js_sdk_domains` (migration 13) and `quotes` (migration 8), which schema 2 lacks.
        try await db.insert(into: "apps").columns(Array(SQLAppStore.columns.dropLast(2)))
            .values(Array(try SQLAppStore.values(Fixture.app("100000000000001")).dropLast(2))).run()
        let user = Fixture.user("1")
        // Users: only the columns schema 2 has (later migrations add `quotes`, `account_state`, `locale`, …).
        let schema2 = Set(
            try await db.raw("PRAGMA table_info(users)").all().map { try $0.decode(column: "name", as: String.self) })
        let kept = zip(SQLUserStore.columns, SQLUserStore.values(user)).filter { schema2.contains($0.0) }
        try await db.insert(into: "users").columns(kept.map(\.0)).values(kept.map(\.1)).run()
        try await db.insert(into: "grants").columns(
            "app_id", "user_id", "granted", "declined", "created_at", "updated_at", "last_login_at"
        )
        .values("100000000000001", "1", "[\"public_profile\"]", "[]", Int64(1), Int64(1), Int64(1)).run()
        try await SQLStorage.migrate(db)
        try await SQLStorage.migrate(db)
        #expect(try await SQLStorage.appliedMigrations(db) == SQLMigrator.all.map(\.version))
        let grant = try await old.grants.find(appID: "100000000000001", userID: "1")
        #expect(grant?.granted == ["public_profile"])
        #expect(grant?.defaultAudience == nil)
        try await connection.close()
    }
}
