import Foundation
import Logging
import SQLKit
import SQLiteKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Data survives close + reopen and migrations are idempotent (every backend), plus SQLite-only checks of
/// the file, its pragmas and error mapping.
@Suite("Storage persistence and migrations")
struct StoragePersistenceTests {
    @Test func everythingSurvivesCloseAndReopen() async throws {
        try await withEachReopenableBackend { open in
            let app = Fixture.app("A")
            var user = Fixture.user("1", email: "Persist@Example.com")
            user.picture = Data([0, 1, 2, 254, 255])
            user.location = Place(id: "7", name: "Oslo")
            let grant = Fixture.grant(app: "A", user: "1", granted: ["public_profile", "email"])
            let code = Fixture.code("c1", app: "A", user: "1")
            let token = Fixture.token("t1", app: "A", user: "1", codeID: "c1")
            let session = Fixture.session("s1", user: "1")

            let first = try await open()
            try await first.apps.create(app)
            try await first.users.create(user)
            try await first.users.create(Fixture.user("2"))
            try await first.apps.setRole(appID: "A", userID: "1", role: .admin)
            try await first.friendships.befriend("1", "2", at: TestTime.base)
            try await first.grants.save(grant)
            try await first.codes.insert(code)
            #expect(try await first.codes.consume(id: "c1", at: TestTime.at(3)))
            try await first.tokens.insert(token)
            try await first.sessions.insert(session)
            let scoped = try await first.users.scopedID(appID: "A", userID: "1")
            try await first.shutdown()

            let second = try await open()
            #expect(try await second.apps.find(id: "A") == app)
            #expect(try await second.users.find(email: "persist@example.com") == user)
            #expect(try await second.apps.role(appID: "A", userID: "1") == .admin)
            #expect(try await second.friendships.friends(of: "2") == ["1"])
            #expect(try await second.grants.find(appID: "A", userID: "1") == grant)
            #expect(try await second.codes.find(codeHash: code.codeHash)?.usedAt == TestTime.at(3))
            #expect(try await second.codes.consume(id: "c1", at: TestTime.at(4)) == false)
            #expect(try await second.tokens.find(tokenHash: token.tokenHash) == token)
            #expect(try await second.sessions.find(secretHash: session.secretHash) == session)
            #expect(try await second.users.scopedID(appID: "A", userID: "1") == scoped)
            try await second.shutdown()
        }
    }

    @Test func openingTwiceDoesNotReapplyMigrations() async throws {
        try await withEachReopenableBackend { open in
            let first = try await open()
            try await first.users.create(Fixture.user("1"))
            try await first.shutdown()
            let second = try await open()
            let third = try await open()  // while the second is still open
            #expect(try await third.users.list().map(\.id) == ["1"])
            try await third.users.create(Fixture.user("2"))
            #expect(try await second.users.list().map(\.id) == ["1", "2"])
            try await third.shutdown()
            try await second.shutdown()
        }
    }

    @Test func twoProcessesMigratingAFreshDatabaseAtOnceBothSucceed() async throws {
        try await withEachReopenableBackend { open in
            async let first = open()
            async let second = open()
            let (a, b) = try await (first, second)
            try await a.users.create(Fixture.user("1"))
            #expect(try await b.users.find(id: "1")?.id == "1")
            try await a.shutdown()
            try await b.shutdown()
        }
    }

    // MARK: SQLite specifics

    static func temporaryPath() -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("gatehouse-sqlite-\(UUID().uuidString)", isDirectory: true)
        return (folder, folder.appendingPathComponent("a/b/gatehouse.sqlite").path)
    }

    @Test func sqliteCreatesFoldersAndAnOwnerOnlyFile() async throws {
        let (folder, path) = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try await SQLStorage.openSQLite(path: path, logger: StorageBackends.logger)
        try await storage.apps.create(Fixture.app("A"))
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        try await storage.shutdown()
    }

    @Test func sqliteConnectionIsConfiguredAndMigrated() async throws {
        let (folder, path) = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: StorageBackends.logger)
        let db = connection.sql()
        func pragma<V: Decodable>(_ name: String, as type: V.Type) async throws -> V? {
            try await db.raw(SQLQueryString("PRAGMA \(unsafeRaw: name)")).first(decodingColumn: name, as: V.self)
        }
        #expect(try await pragma("journal_mode", as: String.self) == "wal")
        #expect(try await pragma("synchronous", as: Int.self) == 2)  // FULL
        #expect(try await pragma("foreign_keys", as: Int.self) == 1)
        #expect(try await db.raw("PRAGMA busy_timeout").first(decodingColumn: "timeout", as: Int.self) == 5000)
        // A throwaway database (the in-process emulator's) asks for commits that survive the process only.
        let throwaway = try await SQLiteDatabaseFactory.open(
            path: path + "-throwaway", logger: StorageBackends.logger, durability: .processCrash)
        #expect(
            try await throwaway.sql().raw("PRAGMA synchronous").first(decodingColumn: "synchronous", as: Int.self) == 1)
        try await throwaway.close()

        try await SQLStorage.migrate(db)
        try await SQLStorage.migrate(db)
        // Every known migration, once each, in order. Workstreams own version numbers (lead 3, ops 4, social 5,
        // remote 6-7), so the list may have gaps until every workstream has landed; it must stay strictly increasing.
        let known = SQLMigrator.all.map(\.version)
        #expect(try await SQLStorage.appliedMigrations(db) == known)
        #expect(known == known.sorted() && Set(known).count == known.count && known.first == 1)
        #expect(SQLStorage.latestMigration == known.last)
        let tables = try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .all(decodingColumn: "name", as: String.self)
        for table in [
            "app_roles", "app_scoped_ids", "apps", "auth_codes", "browser_sessions", "emulator_settings", "friendships",
            "injected_errors",
            "gatehouse_migrations", "grants", "signing_keys", "tokens", "users",
            "device_codes", "token_cache_slots", "server_keys", "app_callbacks", "posts", "app_requests",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        try await connection.close()
    }

    @Test func sqliteUnopenablePathIsUnavailable() async throws {
        let (folder, _) = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let blocker = folder.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let error = await #expect(throws: StorageError.self) {
            _ = try await SQLStorage.openSQLite(
                path: blocker.appendingPathComponent("db.sqlite").path, logger: StorageBackends.logger)
        }
        guard case .unavailable(let message)? = error else {
            Issue.record("expected .unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("not-a-folder"))

        // A folder where the file should be: the folder exists but SQLite cannot open it.
        await #expect(throws: StorageError.self) {
            _ = try await SQLStorage.openSQLite(path: folder.path, logger: StorageBackends.logger)
        }
    }

    @Test func sqliteErrorsAreClassified() async throws {
        let (folder, path) = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: StorageBackends.logger)
        let db = connection.sql()
        let classify = SQLErrorClassifier.sqlite.classify
        func failure(_ sql: String) async -> (any Error)? {
            do { try await db.raw(SQLQueryString(sql)).run(); return nil } catch { return error }
        }
        _ = await failure("CREATE TABLE parent (id TEXT PRIMARY KEY)")
        _ = await failure("CREATE TABLE child (parent_id TEXT REFERENCES parent(id))")
        _ = await failure("INSERT INTO parent (id) VALUES ('hunter2')")

        let duplicate = try #require(await failure("INSERT INTO parent (id) VALUES ('hunter2')"))
        guard case .uniqueViolation(let detail) = classify(duplicate) else {
            Issue.record("expected a unique violation, got \(classify(duplicate))")
            return
        }
        #expect(detail.contains("parent.id"))
        #expect(!detail.contains("hunter2"))

        let orphan = try #require(await failure("INSERT INTO child (parent_id) VALUES ('missing')"))
        #expect(classify(orphan) == .foreignKeyViolation)

        let syntax = try #require(await failure("SELEKT 1"))
        guard case .unavailable(let message) = classify(syntax) else {
            Issue.record("expected unavailable")
            return
        }
        #expect(message.hasPrefix("SQLite error"))

        struct Opaque: Error { let secret = "hunter2" }
        #expect(classify(Opaque()) == .unavailable("database error (Opaque)"))
        try await connection.close()
    }
}
