import GatehouseCore
import Foundation
import Logging
import SQLKit
import SQLiteKit

/// Entry points to Gatehouse's SQL storage.
///
/// Every query is written once with SQLKit's builders; the only dialect-specific features used
/// (`INSERT … ON CONFLICT`, `RETURNING`, `CREATE INDEX IF NOT EXISTS`) exist in both SQLite (≥ 3.35) and
/// PostgreSQL; ``PostgresStorage`` opens the PostgreSQL side.
package enum SQLStorage {
    /// Opens (creating if needed) the SQLite database at `path`, configures it and applies migrations.
    ///
    /// Parent folders are created and a new file is made readable by its owner only (it holds app secrets).
    /// The connection uses `journal_mode=WAL`, `synchronous=FULL` (a committed write survives a power cut),
    /// `busy_timeout=5000` (the CLI may write while the server runs) and `foreign_keys=ON`.
    /// Token lookups, resolved callers, apps, signing keys and injected errors are cached while the storage's
    /// ``Storage/invalidationFeed`` (a ``SQLiteChangeWatcher``, which drops the caches when another process writes
    /// to the file) runs. `Storage.shutdown` closes the connections; stop the feed first.
    ///
    /// - Parameters:
    ///   - spans: every statement's span once migrated (``DatabaseSpans``); nil, the default: none.
    ///   - durability: what a commit survives (`synchronous=FULL` unless a throwaway database asks for less).
    /// - Throws: `StorageError.unavailable` when the file cannot be created, opened or migrated.
    package static func openSQLite(
        path: String, logger: Logger, random: any RandomSource = SystemRandomSource(),
        clock: any GatehouseClock = SystemClock(), spans: DatabaseSpans? = nil,
        durability: CommitDurability = .powerLoss
    ) async throws -> Storage {
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: logger, durability: durability)
        let writer = connection.sql(queryLogLevel: nil)
        let readers: [SQLiteConnection]
        do {
            try await SQLStoreContext(db: writer, errors: .sqlite).run { try await migrate(writer) }
            // An in-memory database exists on its one connection only.
            readers = path == ":memory:" ? [] : try await SQLiteDatabaseFactory.openReaders(path: path, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        // Kept statements on the caller's thread for the hot reads (issue 43 item 2); as many as the readers.
        let kept = readers.isEmpty ? nil : SQLiteKeptReads(path: path, capacity: SQLiteDatabaseFactory.readerCount)
        let closer = SQLiteConnectionCloser(readers + [connection], kept: kept)
        // Traced beneath the router, so it and the stores see the connections' own types as they test for them.
        let traced = { (db: any SQLDatabase) -> any SQLDatabase in spans.map { TracedSQLDatabase(db, spans: $0) } ?? db
        }
        let db = SQLiteReadRouting(
            writer: traced(writer), readers: readers.map { traced($0.sql(queryLogLevel: nil)) }, closer: closer,
            kept: kept, spans: spans)
        // Off until the watcher runs (``Storage/invalidationFeed``): only it can vouch for them.
        let caches = NodeCacheSet(clock: clock)
        var storage = make(
            database: db, random: random, clock: clock, tokenCache: caches.tokens, keyCache: caches.keys,
            callerCache: caches.callers, injectionCache: caches.injections, appCache: caches.apps
        ) {
            try await closer.close()
        }
        storage.invalidationFeed = SQLiteChangeWatcher(db: db, caches: caches.all)
        return storage
    }

    /// Stores over any (already migrated) SQL database.
    ///
    /// - Parameters:
    ///   - random: where app-scoped ids come from.
    ///   - clock: when app-scoped ids and server keys were made.
    ///   - errors: how the driver's errors are recognised (defaults to SQLite's).
    ///   - tokenCache: a node-local cache of token lookups (nil: none); revocations invalidate it and are
    ///     announced through `invalidations` to the other nodes on the same database.
    ///   - keyCache: the node's copy of the signing keys (nil: none); rotations invalidate it the same way.
    ///   - callerCache: the node's resolved callers (nil: none); app, person, grant, token and import writes
    ///     invalidate it the same way.
    ///   - injectionCache: the node's copy of the injected errors (nil: none); injection writes invalidate it
    ///     the same way.
    ///   - appCache: the node's apps by id (nil: none; only used with a `callerCache`); app writes invalidate it
    ///     the same way.
    ///   - shutdown: run by `Storage.shutdown`; by default nothing (the caller owns the connection).
    package static func make(
        database: any SQLDatabase,
        random: any RandomSource = SystemRandomSource(),
        clock: any GatehouseClock = SystemClock(),
        errors: SQLErrorClassifier = .sqlite,
        tokenCache: TokenLookupCache? = nil,
        keyCache: SigningKeyCache? = nil,
        callerCache: CallerCache? = nil,
        injectionCache: InjectionCache? = nil,
        appCache: AppCache? = nil,
        invalidations: any TokenInvalidationPublisher = LocalTokenInvalidation(),
        shutdown: @escaping @Sendable () async throws -> Void = {}
    ) -> Storage {
        let tokens = SQLTokenStore(database: database, errors: errors)
        let keys = SQLSigningKeyStore(database: database, errors: errors)
        let emulator = SQLEmulatorStore(database: database, errors: errors)
        var targets: [any CacheInvalidationTarget] = []
        if let tokenCache { targets.append(tokenCache) }
        if let keyCache { targets.append(keyCache) }
        if let callerCache { targets.append(callerCache) }
        if let injectionCache { targets.append(injectionCache) }
        if let appCache { targets.append(appCache) }
        let caches = NodeCaches(targets)
        let apps = SQLAppStore(database: database, errors: errors)
        let users = SQLUserStore(database: database, random: random, clock: clock, errors: errors)
        let grants = SQLGrantStore(database: database, errors: errors)
        // Without a caller cache nothing here reads apps, people or grants through a cache, so their writes
        // need no announcing.
        let announces = callerCache != nil
        var storage = Storage(
            apps: announces
                ? InvalidatingAppStore(base: apps, cache: appCache, caches: caches, publisher: invalidations)
                    as any AppStore : apps,
            users: announces
                ? InvalidatingUserStore(base: users, caches: caches, publisher: invalidations) as any UserStore : users,
            friendships: SQLFriendshipStore(database: database, errors: errors),
            grants: announces
                ? InvalidatingGrantStore(base: grants, caches: caches, publisher: invalidations) as any GrantStore
                : grants,
            codes: SQLAuthCodeStore(database: database, errors: errors),
            tokens: tokenCache.map {
                CachingTokenStore(base: tokens, cache: $0, publisher: invalidations, alsoInvalidating: caches)
            } ?? tokens,
            sessions: SQLBrowserSessionStore(database: database, errors: errors),
            signingKeys: keyCache.map { CachingSigningKeyStore(base: keys, cache: $0, publisher: invalidations) }
                ?? keys,
            emulator: caches.targets.isEmpty
                ? emulator as any EmulatorStore
                : CachingEmulatorStore(
                    base: emulator, injectionCache: injectionCache, caches: caches, publisher: invalidations),
            deviceCodes: SQLDeviceCodeStore(database: database, errors: errors),
            tokenCache: SQLTokenCacheStore(database: database, errors: errors),
            serverKeys: SQLServerKeyStore(database: database, clock: clock, errors: errors),
            appCallbacks: SQLAppCallbackStore(database: database, errors: errors),
            posts: SQLPostStore(database: database, errors: errors),
            requests: SQLAppRequestStore(database: database, errors: errors),
            admins: SQLAdminStore(database: database, errors: errors),
            rateLimits: SQLRateLimitStore(database: database, errors: errors),
            callerRecords: SQLCallerRecordStore(database: database, errors: errors),
            sessionRecords: SQLSessionRecordStore(database: database, errors: errors),
            shutdown: shutdown,
            ping: {
                try await SQLStoreContext(db: database, errors: errors).run { try await database.raw("SELECT 1").run() }
            }
        )
        storage.callerCache = callerCache
        storage.journal = SQLJournalStore(database: database, errors: errors)
        storage.twoFactor = SQLTwoFactorStore(database: database, errors: errors)
        storage.sessionActivity = SQLSessionActivityStore(database: database, errors: errors)
        storage.mail = SQLMailOutboxStore(database: database, errors: errors)
        storage.accountCodes = SQLAccountCodeStore(database: database, errors: errors)
        storage.deletedAccounts = SQLDeletedAccountStore(database: database, errors: errors)
        storage.webhooks = SQLWebhookStore(database: database, errors: errors)
        storage.events = SQLEventStore(database: database, errors: errors)
        storage.eventDeliveries = SQLEventDeliveryStore(database: database, errors: errors)
        storage.writes = SQLWriteTransactions(
            database: database, errors: errors, announce: announces ? (caches, invalidations) : nil)
        return storage
    }

    /// Applies pending migrations in order, each once; a no-op on an up-to-date database.
    package static func migrate(_ db: any SQLDatabase) async throws {
        try await SQLMigrator.migrate(db)
    }

    /// The migration versions recorded in `gatehouse_migrations`, ascending.
    package static func appliedMigrations(_ db: any SQLDatabase) async throws -> [Int] {
        try await SQLMigrator.appliedVersions(db)
    }

    /// The newest migration version this build knows.
    package static var latestMigration: Int {
        SQLMigrator.all.map(\.version).max() ?? 0
    }
}
