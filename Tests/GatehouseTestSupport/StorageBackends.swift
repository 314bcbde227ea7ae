import Foundation
import Logging
import Testing
import GatehouseCore
import GatehouseStorage

/// One database backend the contract tests run against.
///
/// `open` connects to the *same* database every time it is called, so tests can close and reopen;
/// `cleanup` removes it. The PostgreSQL backend creates a database of its own on first use and drops it in
/// `cleanup`.
package struct StorageTestBackend: Sendable {
    package var name: String
    /// Opens the storage with its invalidation feed not running (so its caches stay off).
    package var openWithoutFeed: @Sendable () async throws -> Storage
    package var cleanup: @Sendable () async throws -> Void

    /// Opens the storage with its invalidation feed running, as the server's service group runs it.
    package var open: @Sendable () async throws -> Storage {
        { [openWithoutFeed] in try await openWithoutFeed().runningFeed() }
    }
}

/// The URL of one lazily created PostgreSQL test database.
/// Concurrent first callers share one creation (the actor is reentrant across the `await`).
package actor LazyPostgresDatabase {
    private var creation: Task<String, any Error>?

    package init() {}

    package func get() async throws -> String {
        if let creation { return try await creation.value }
        let task = Task { try await PostgresTestDatabase.create() }
        creation = task
        return try await task.value
    }

    package func drop() async throws {
        if let url = try? await creation?.value { try await PostgresTestDatabase.drop(url) }
        creation = nil
    }
}

package enum StorageBackends {
    package static let logger: Logger = {
        var logger = Logger(label: "gatehouse.storage.tests")
        logger.logLevel = .warning
        return logger
    }()

    /// A fresh SQLite file in its own temporary folder: a copy of the migrated template, or (`fromTemplate`
    /// false, for the tests of opening and migrating) an empty file that the first open migrates.
    package static func sqlite(fromTemplate: Bool) -> StorageTestBackend {
        // Not created here: the first open makes the folders, as it would for a real data directory.
        let folder = ScratchDirectory("storage")
        let path = folder.url.appendingPathComponent("db/gatehouse.sqlite").path
        return StorageTestBackend(
            name: "sqlite",
            openWithoutFeed: {
                if fromTemplate, !FileManager.default.fileExists(atPath: path) {
                    try await MigratedTemplate.copy(to: path)
                }
                return try await SQLStorage.openSQLite(path: path, logger: logger)
            },
            cleanup: { folder.remove() }
        )
    }

    /// A fresh PostgreSQL database on the test cluster. Fails (never skips) when the cluster is missing.
    package static func postgres() -> StorageTestBackend {
        let database = LazyPostgresDatabase()
        return StorageTestBackend(
            name: "postgresql",
            openWithoutFeed: {
                // Small pools: dozens of tests run at once against one cluster. So a wait for a free connection
                // can be long on a loaded machine (the full suite beside a busy core): a minute, not production's
                // 5 s, still ends a real deadlock, without failing a test only because the machine is busy.
                try await PostgresStorage.open(
                    url: try await database.get(), logger: logger,
                    options: .init(maximumConnections: 4, connectionWaitTimeout: .seconds(60)))
            },
            cleanup: { try await database.drop() }
        )
    }

    /// Every backend: each contract test runs on SQLite and on PostgreSQL.
    package static func all(fromTemplate: Bool) -> [StorageTestBackend] {
        [sqlite(fromTemplate: fromTemplate), postgres()]
    }
}

/// Runs `body` once per backend with a freshly migrated, empty database, then closes and removes it.
package func withEachBackend(_ body: (Storage) async throws -> Void) async throws {
    try await withEachReopenableBackend(fromTemplate: true) { open in
        let storage = try await open()
        do {
            try await body(storage)
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }
}

/// Runs `body` once per backend with a function that (re)opens the same database; `body` must shut down
/// every `Storage` it opens.
package func withEachReopenableBackend(
    fromTemplate: Bool = false, _ body: (_ open: @Sendable () async throws -> Storage) async throws -> Void
) async throws {
    for backend in StorageBackends.all(fromTemplate: fromTemplate) {
        do {
            try await body(backend.open)
        } catch {
            try? await backend.cleanup()
            Issue.record("backend \(backend.name) failed: \(error)")
            throw error
        }
        try await backend.cleanup()
    }
}

/// Fixed instants, whole seconds, so round trips compare exactly.
package enum TestTime {
    package static let base = Date(timeIntervalSince1970: 1_700_000_000)
    package static func at(_ offset: TimeInterval) -> Date { base.addingTimeInterval(offset) }
}

/// Small builders for valid records.
package enum Fixture {
    package static func app(_ id: String = "100000000000001", createdAt: Date = TestTime.base) -> AppRecord {
        AppRecord(
            id: id, secret: "secret-\(id)", clientToken: "client-\(id)", name: "App \(id)",
            redirectURIs: ["https://example.com/cb"], createdAt: createdAt
        )
    }

    package static func user(
        _ id: String, email: String? = nil, createdAt: Date = TestTime.base, testUserOf: String? = nil
    ) -> UserRecord {
        UserRecord(
            id: id, email: email ?? "user\(id)@example.com", passwordHash: "$2b$12$hash\(id)",
            firstName: "First\(id)", lastName: "Last\(id)", testUserOfAppID: testUserOf, createdAt: createdAt
        )
    }

    package static func token(
        _ id: String, app: String, user: String?, issuedAt: Date = TestTime.base, expiresAt: Date? = TestTime.at(3600),
        revokedAt: Date? = nil, codeID: String? = nil, kind: TokenKind = .user
    ) -> TokenRecord {
        TokenRecord(
            id: id, tokenHash: "hash-\(id)", kind: kind, appID: app, userID: user, issuedAt: issuedAt,
            expiresAt: expiresAt, revokedAt: revokedAt, codeID: codeID
        )
    }

    package static func code(_ id: String, app: String, user: String) -> AuthCodeRecord {
        AuthCodeRecord(
            id: id, codeHash: "codehash-\(id)", appID: app, userID: user, redirectURI: "https://example.com/cb",
            createdAt: TestTime.base, expiresAt: TestTime.at(600)
        )
    }

    package static func session(_ id: String, user: String) -> BrowserSessionRecord {
        BrowserSessionRecord(
            id: id, secretHash: "secret-\(id)", userID: user, createdAt: TestTime.base, expiresAt: TestTime.at(86_400),
            authenticatedAt: TestTime.base
        )
    }

    package static func grant(
        app: String, user: String, granted: [String] = ["public_profile"], at: Date = TestTime.base
    ) -> GrantRecord {
        GrantRecord(
            appID: app, userID: user, granted: granted, declined: [], createdAt: at, updatedAt: at, lastLoginAt: at)
    }
}
