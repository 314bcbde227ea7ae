import GatehouseCore
import AsyncKit
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit

/// Gatehouse's storage on PostgreSQL: the same SQLKit stores as SQLite, over a connection pool.
///
/// Several nodes may share one database. Each node caches token lookups (``TokenLookupCache``), resolved
/// callers (``CallerCache``), the signing keys (``SigningKeyCache``) and the injected errors (``InjectionCache``), apps (``AppCache``);
/// a node that changes what they hold (a revocation, a profile, grant or app change, a key rotation, an injection)
/// sends `NOTIFY` on
/// ``Options/notificationChannel`` and every node's ``PostgresInvalidationListener`` drops the stale entries.
/// A node whose listener is disconnected does not cache at all, so it can never serve a revocation it did not hear about.
///
/// Every statement commits before the call returns (autocommit; PostgreSQL's default `synchronous_commit=on`
/// flushes the WAL first), so an answered issuance survives a crash of the server or the database.
public enum PostgresStorage {
    /// Pool and cache settings.
    public struct Options: Sendable {
        /// Connections per event loop (the process has one event loop per core).
        public var maxConnectionsPerEventLoop: Int
        /// How long a request waits for a free connection before failing as unavailable.
        public var connectionWaitTimeout: TimeAmount
        /// The `LISTEN`/`NOTIFY` channel for token invalidations; nodes sharing a database must agree.
        public var notificationChannel: String
        /// Whether token lookups, callers and signing keys are cached on this node (its writes are announced
        /// either way).
        public var cachesTokens: Bool

        /// The defaults: 4 connections per event loop, 5 s wait, channel `gatehouse_tokens`, caching on.
        public init(
            maxConnectionsPerEventLoop: Int = 4, connectionWaitTimeout: TimeAmount = .seconds(5),
            notificationChannel: String = "gatehouse_tokens", cachesTokens: Bool = true
        ) {
            self.maxConnectionsPerEventLoop = maxConnectionsPerEventLoop
            self.connectionWaitTimeout = connectionWaitTimeout
            self.notificationChannel = notificationChannel
            self.cachesTokens = cachesTokens
        }
    }

    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database[?sslmode=…]`),
    /// and applies pending migrations. The invalidation listener is the storage's `invalidationFeed`, run by
    /// whoever owns the node (the server's service group); `Storage.shutdown` closes the pool.
    ///
    /// - Throws: `StorageError.unavailable` when the URL is invalid or the database cannot be reached or
    ///   migrated; the message never contains the password.
    public static func open(
        url: String, logger: Logger, random: any RandomSource = SystemRandomSource(), clock: any GatehouseClock = SystemClock(),
        options: Options = Options()
    ) async throws -> Storage {
        let configuration = try configuration(url: url)
        var poolLogger = logger
        // The pool logs every failed connection attempt at error level; while PostgreSQL is down the server
        // already answers 503 and logs once per request.
        poolLogger.logLevel = .critical
        let pool = EventLoopGroupConnectionPool(
            source: PostgresConnectionSource(sqlConfiguration: configuration),
            maxConnectionsPerEventLoop: options.maxConnectionsPerEventLoop,
            requestTimeout: options.connectionWaitTimeout,
            logger: poolLogger,
            on: MultiThreadedEventLoopGroup.singleton
        )
        let owner = PoolOwner(pool: pool)
        let db = pool.database(logger: poolLogger).sql(queryLogLevel: nil)
        do {
            try await SQLStoreContext(db: db, errors: .postgres).run { try await SQLStorage.migrate(db) }
        } catch {
            try? await owner.shutdown()
            if case StorageError.unavailable(let message) = error {
                throw StorageError.unavailable("cannot open PostgreSQL database \(redacted(url)): \(message)")
            }
            throw error
        }
        let publisher = PostgresNotifyPublisher(db: db, channel: options.notificationChannel, logger: logger)
        let caches = NodeCacheSet(clock: clock)
        var storage = SQLStorage.make(
            database: db, random: random, clock: clock, errors: .postgres, tokenCache: caches.tokens, keyCache: caches.keys,
            callerCache: caches.callers, injectionCache: caches.injections, appCache: caches.apps, invalidations: publisher
        ) { try await owner.shutdown() }
        // Without a feed the caches are never enabled: this node reads everything from the database, but its
        // writes still reach the nodes that do cache.
        guard options.cachesTokens else { return storage }
        storage.invalidationFeed = PostgresInvalidationListener(
            configuration: configuration, channel: options.notificationChannel, caches: caches.all, logger: logger)
        return storage
    }

    /// Parses a connection URL. Plain `postgres://` URLs without `sslmode` use TLS only if the server offers it.
    package static func configuration(url: String) throws -> SQLPostgresConfiguration {
        do {
            return try SQLPostgresConfiguration(url: url)
        } catch {
            throw StorageError.unavailable(
                "\(redacted(url)) is not a PostgreSQL URL (postgres://user[:password]@host[:port]/database)")
        }
    }

    /// The URL with any password replaced by `***`, for messages and logs.
    public static func redacted(_ url: String) -> String { DatabaseLocation.redacted(url) }
}

/// Owns the pool for `Storage.shutdown`. AsyncKit's pool is thread-safe (each per-loop pool confines itself
/// to its event loop) but predates `Sendable`.
package final class PoolOwner: @unchecked Sendable {
    package let pool: EventLoopGroupConnectionPool<PostgresConnectionSource>
    package init(pool: EventLoopGroupConnectionPool<PostgresConnectionSource>) { self.pool = pool }
    package func shutdown() async throws { try await pool.shutdownAsync() }
}

/// Sends token invalidations to every node (including this one) with `pg_notify`.
package struct PostgresNotifyPublisher: TokenInvalidationPublisher {
    package let db: any SQLDatabase
    package let channel: String
    package let logger: Logger

    package func publish(_ event: TokenInvalidation) async {
        for attempt in 1...3 {
            do {
                try await db.raw("SELECT pg_notify(\(bind: channel), \(bind: event.payload))").run()
                return
            } catch {
                if attempt < 3 { try? await Task.sleep(for: .milliseconds(100)); continue }
                // The revocation itself committed. If the database is unreachable, the other nodes' listeners
                // are cut off too and clear their caches when they reconnect.
                logger.warning("could not announce a token revocation to other nodes", metadata: [
                    "error": "\(SQLErrorClassifier.postgres.describe(error))",
                ])
            }
        }
    }
}
