import Foundation
import PostgresKit
import SQLKit
import Testing
@testable import GatehouseCore
@testable import GatehouseStorage
import GatehouseTestSupport

/// PostgreSQL specifics the shared contract tests do not show: schema and migrations, error mapping, URLs,
/// and the token cache shared by two "nodes" (two `Storage`s on one database).
@Suite("PostgreSQL storage", .timeLimit(.minutes(10)))
struct PostgresStorageTests {
    /// Runs `body` with a fresh database URL and drops the database afterwards.
    func withDatabase(_ body: (String) async throws -> Void) async throws {
        let url = try await PostgresTestDatabase.create()
        do { try await body(url) } catch {
            try? await PostgresTestDatabase.drop(url)
            throw error
        }
        try await PostgresTestDatabase.drop(url)
    }

    func withSQL(_ url: String, _ body: (any SQLDatabase) async throws -> Void) async throws {
        try await PostgresTestDatabase.withAdminConnection(url, body)
    }

    @Test func migrationsCreateEveryTableWithPostgresTypes() async throws {
        try await withDatabase { url in
            let storage = try await PostgresStorage.open(url: url, logger: StorageBackends.logger)
            try await storage.shutdown()
            let again = try await DatabaseLocation.postgres(url: url).migrate(logger: StorageBackends.logger)
            let versions = SQLMigrator.all.map(\.version).sorted()
            #expect(again == MigrationReport(before: versions, after: versions, latest: SQLStorage.latestMigration))
            #expect(again.applied.isEmpty)
            try await withSQL(url) { db in
                let tables = try await db.raw(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
                )
                .all(decodingColumn: "table_name", as: String.self)
                for table in [
                    "app_roles", "app_scoped_ids", "apps", "auth_codes", "browser_sessions", "friendships",
                    "gatehouse_migrations", "grants", "signing_keys", "tokens", "users",
                ] {
                    #expect(tables.contains(table), "missing table \(table)")
                }
                let picture = try await db.raw(
                    "SELECT data_type FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'picture'"
                )
                .first(decodingColumn: "data_type", as: String.self)
                #expect(picture == "bytea")
                let flag = try await db.raw(
                    "SELECT data_type FROM information_schema.columns WHERE table_name = 'apps' AND column_name = 'require_app_secret'"
                )
                .first(decodingColumn: "data_type", as: String.self)
                #expect(flag == "boolean")
            }
        }
    }

    @Test func migrateReportsWhatItApplied() async throws {
        try await withDatabase { url in
            let report = try await DatabaseLocation(parsing: url).migrate(logger: StorageBackends.logger)
            let versions = SQLMigrator.all.map(\.version).sorted()
            #expect(report == MigrationReport(before: [], after: versions, latest: SQLStorage.latestMigration))
            #expect(report.applied == versions)
        }
    }

    @Test func postgresErrorsAreClassifiedWithoutValues() async throws {
        try await withDatabase { url in
            let classify = SQLErrorClassifier.postgres.classify
            try await withSQL(url) { db in
                func failure(_ sql: String) async -> (any Error)? {
                    do { try await db.raw(SQLQueryString(sql)).run(); return nil } catch { return error }
                }
                _ = await failure("CREATE TABLE parent (id TEXT PRIMARY KEY)")
                _ = await failure("CREATE TABLE child (parent_id TEXT REFERENCES parent(id))")
                _ = await failure("INSERT INTO parent (id) VALUES ('hunter2')")
                let duplicate = try #require(await failure("INSERT INTO parent (id) VALUES ('hunter2')"))
                #expect(classify(duplicate) == .uniqueViolation(detail: "parent: parent_pkey"))
                let orphan = try #require(await failure("INSERT INTO child (parent_id) VALUES ('missing')"))
                #expect(classify(orphan) == .foreignKeyViolation)
                let syntax = try #require(await failure("SELEKT 1"))
                #expect(classify(syntax) == .unavailable("PostgreSQL error (SQLSTATE 42601)"))
            }
        }
    }

    @Test func unreachableOrInvalidDatabasesAreUnavailableAndHidePasswords() async throws {
        let port = try FreeTCPPort.find()  // nothing listens there
        let url = "postgres://gatehouse:s3cret-pass@127.0.0.1:\(port)/nothing?sslmode=disable"
        let error = await #expect(throws: StorageError.self) {
            _ = try await PostgresStorage.open(url: url, logger: StorageBackends.logger)
        }
        guard case .unavailable(let message)? = error else { Issue.record("expected unavailable"); return }
        #expect(message.contains("127.0.0.1:\(port)"))
        #expect(message.contains("PostgreSQL is unreachable"), "\(message)")
        #expect(!message.contains("s3cret-pass"))
        #expect(throws: StorageError.self) { _ = try DatabaseLocation(parsing: "mysql://root:pw@localhost/db") }
        #expect(try DatabaseLocation(parsing: "postgresql://u@h/db") == .postgres(url: "postgresql://u@h/db"))
        #expect(
            try DatabaseLocation(parsing: "/var/lib/gatehouse.sqlite") == .sqlite(path: "/var/lib/gatehouse.sqlite"))
        #expect(try DatabaseLocation(parsing: "sqlite:data/g.sqlite") == .sqlite(path: "data/g.sqlite"))
        #expect(
            DatabaseLocation.postgres(url: url).description
                == "PostgreSQL postgres://gatehouse:***@127.0.0.1:\(port)/nothing?sslmode=disable")
    }

    @Test func aRevocationOnOneNodeReachesTheOtherNodesCacheThroughNotify() async throws {
        try await withDatabase { url in
            let a = try await PostgresStorage.open(url: url, logger: StorageBackends.logger).runningFeed()
            let b = try await PostgresStorage.open(url: url, logger: StorageBackends.logger).runningFeed()
            let cacheB = try #require((b.tokens as? CachingTokenStore)?.cache)
            try await waitUntil { cacheB.isEnabled }
            try await a.apps.create(Fixture.app("A"))
            try await a.users.create(Fixture.user("1"))
            try await a.tokens.insert(Fixture.token("t1", app: "A", user: "1"))
            try await a.tokens.insert(Fixture.token("t2", app: "A", user: "1"))
            #expect(try await b.tokens.find(tokenHash: "hash-t1")?.revokedAt == nil)
            #expect(try await b.tokens.find(tokenHash: "hash-t2")?.revokedAt == nil)
            #expect(cacheB.count == 2)

            try await a.tokens.revoke(id: "t1", at: TestTime.at(10))
            // Only the NOTIFY can drop the entry this soon: the cache's own expiry is 300 s away. How fast it
            // arrives is a latency figure (milliseconds when idle), not something to assert on a loaded machine.
            try await waitUntil(seconds: 60) { cacheB.count == 1 }
            #expect(try await b.tokens.find(tokenHash: "hash-t1")?.revokedAt == TestTime.at(10))

            try await a.tokens.setExpiry(id: "t2", expiresAt: TestTime.at(99))
            try await waitUntil { try await b.tokens.find(tokenHash: "hash-t2")?.expiresAt == TestTime.at(99) }
            try await a.shutdown()
            try await b.shutdown()
        }
    }

    @Test func aNodeThatLosesItsListenerStopsCachingAndNeverServesStaleTokens() async throws {
        try await withDatabase { url in
            let a = try await PostgresStorage.open(url: url, logger: StorageBackends.logger).runningFeed()
            let cache = try #require((a.tokens as? CachingTokenStore)?.cache)
            try await waitUntil { cache.isEnabled }
            try await a.apps.create(Fixture.app("A"))
            try await a.users.create(Fixture.user("1"))
            try await a.tokens.insert(Fixture.token("t1", app: "A", user: "1"))
            _ = try await a.tokens.find(tokenHash: "hash-t1")
            #expect(cache.count == 1)
            // Cut every connection of this database (the listener's too), then revoke behind the node's back:
            // no NOTIFY is sent, yet the node must not answer from its cache.
            try await withSQL(try PostgresTestDatabase.adminURL()) { db in
                let name = URL(string: url)!.lastPathComponent
                try await db.raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(bind: name)")
                    .run()
            }
            try await waitUntil { !cache.isEnabled || cache.count == 0 }
            try await withSQL(url) { db in
                try await db.raw("UPDATE tokens SET revoked_at = 1700000005 WHERE id = 't1'").run()
            }
            // Either still reconnecting (no caching) or reconnected (cache cleared): the database's answer wins.
            var revoked: Date?
            for _ in 0..<3 {
                revoked = try? await a.tokens.find(tokenHash: "hash-t1")?.revokedAt; if revoked != nil { break }
            }
            #expect(revoked == TestTime.at(5))
            try await waitUntil { cache.isEnabled }  // and the listener comes back by itself
            try await a.shutdown()
        }
    }
}

extension PostgresStorageTests {
    /// The listener must notice every lost connection, whatever it was doing at that moment (waiting for a
    /// notification, sleeping between pings, or waiting for a ping's answer), and shut down promptly after.
    /// Termination lands at a different point of the one-second ping cycle in each round.
    @Test(.timeLimit(.minutes(10)))
    func aListenerThatLosesItsConnectionAgainAndAgainPausesCachingEveryTimeAndComesBack() async throws {
        try await withDatabase { url in
            let a = try await PostgresStorage.open(url: url, logger: StorageBackends.logger).runningFeed()
            let cache = try #require((a.tokens as? CachingTokenStore)?.cache)
            try await a.apps.create(Fixture.app("A"))
            try await a.users.create(Fixture.user("1"))
            try await a.tokens.insert(Fixture.token("t1", app: "A", user: "1"))
            let name = URL(string: url)!.lastPathComponent
            for round in 0..<12 {
                try await waitUntil(seconds: 10) { cache.isEnabled }
                _ = try? await a.tokens.find(tokenHash: "hash-t1")
                try await Task.sleep(for: .milliseconds(round * 83))
                try await withSQL(try PostgresTestDatabase.adminURL()) { db in
                    try await db.raw(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(bind: name)"
                    ).run()
                }
                var noticed = false
                try await waitUntil(seconds: 10) {
                    noticed = !cache.isEnabled || cache.count == 0
                    return noticed
                }
                #expect(noticed, "round \(round): the listener did not notice its connection was cut")
            }
            try await waitUntil(seconds: 10) { cache.isEnabled }
            try await a.shutdown()
        }
    }
}
