import GatehouseCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit

/// Gatehouse's storage on PostgreSQL: the same SQLKit stores as SQLite, over postgres-nio's `PostgresClient`.
///
/// Several nodes may share one database. Each node caches token lookups (``TokenLookupCache``), resolved
/// callers (``CallerCache``), the signing keys (``SigningKeyCache``), the injected errors (``InjectionCache``) and
/// apps (``AppCache``); a node that changes what they hold (a revocation, a profile, grant or app change, a key
/// rotation, an injection) sends `NOTIFY` on ``Options/notificationChannel`` and every node's
/// ``PostgresInvalidationListener`` drops the stale entries. A node whose listener is disconnected does not cache
/// at all, so it can never serve a revocation it did not hear about.
///
/// The connection pool is a `PostgresClient`, which is a swift-service-lifecycle `Service`: the server makes it
/// with ``makeClient(url:logger:options:)`` and runs it in its service group, before the HTTP server, so it
/// closes only after the last request has drained. Code that opens storage for a moment (a CLI command, a test)
/// passes no client, and the storage runs its own until ``Storage/shutdown``.
///
/// Every statement commits before the call returns (autocommit; PostgreSQL's default `synchronous_commit=on`
/// flushes the WAL first), so an answered issuance survives a crash of the server or the database.
package enum PostgresStorage {
    /// Pool and cache settings.
    package struct Options: Sendable {
        /// The most connections the pool opens.
        package var maximumConnections: Int
        /// How long a statement waits for a free connection before failing as unavailable.
        package var connectionWaitTimeout: Duration
        /// The `LISTEN`/`NOTIFY` channel for token invalidations; nodes sharing a database must agree.
        package var notificationChannel: String
        /// Whether token lookups, callers and signing keys are cached on this node (its writes are announced
        /// either way).
        package var cachesTokens: Bool

        /// The defaults: 4 connections per core, 5 s wait, channel `gatehouse_tokens`, caching on.
        package init(
            maximumConnections: Int = 4 * System.coreCount, connectionWaitTimeout: Duration = .seconds(5),
            notificationChannel: String = "gatehouse_tokens", cachesTokens: Bool = true
        ) {
            self.maximumConnections = maximumConnections
            self.connectionWaitTimeout = connectionWaitTimeout
            self.notificationChannel = notificationChannel
            self.cachesTokens = cachesTokens
        }
    }

    /// The connection pool for `url`, not yet running: run it (it is a `Service`) before using storage opened
    /// over it, and stop it after the last statement.
    /// - Throws: `StorageError.unavailable` when the URL is not a PostgreSQL URL.
    package static func makeClient(url: String, logger: Logger, options: Options = Options()) throws -> PostgresClient {
        let configuration = try configuration(url: url)
        var clientConfiguration = try clientConfiguration(configuration.coreConfiguration)
        clientConfiguration.options.maximumConnections = options.maximumConnections
        var poolLogger = logger
        // The pool logs every failed connection attempt; while PostgreSQL is down the server already answers 503
        // and logs once per request.
        poolLogger.logLevel = .critical
        return PostgresClient(
            configuration: clientConfiguration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            backgroundLogger: poolLogger)
    }

    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database[?sslmode=…]`) and
    /// applies pending migrations on a connection of their own. The invalidation listener is the storage's
    /// `invalidationFeed`, run by whoever owns the node (the server's service group).
    ///
    /// - Parameters:
    ///   - client: a pool from ``makeClient(url:logger:options:)`` that the caller runs; nil makes one that this
    ///     storage runs until ``Storage/shutdown``.
    ///   - spans: every statement's span once migrated (``DatabaseSpans``); nil, the default: none.
    /// - Throws: `StorageError.unavailable` when the URL is invalid or the database cannot be reached or
    ///   migrated; the message never contains the password.
    package static func open(
        url: String, logger: Logger, random: any RandomSource = SystemRandomSource(),
        clock: any GatehouseClock = SystemClock(),
        options: Options = Options(), client: PostgresClient? = nil, spans: DatabaseSpans? = nil
    ) async throws -> Storage {
        let configuration = try configuration(url: url)
        try await migrate(url: url, logger: logger)
        let pool: PostgresClient
        let owned: OwnedClientRun?
        if let client {
            pool = client
            owned = nil
        } else {
            pool = try makeClient(url: url, logger: logger, options: options)
            owned = OwnedClientRun(client: pool)
        }
        let db = PostgresClientDatabase(
            client: pool, logger: logger, leaseTimeout: options.connectionWaitTimeout, spans: spans)
        let publisher = PostgresNotifyPublisher(db: db, channel: options.notificationChannel, logger: logger)
        let caches = NodeCacheSet(clock: clock)
        var storage = SQLStorage.make(
            database: db, random: random, clock: clock, errors: .postgres, tokenCache: caches.tokens,
            keyCache: caches.keys,
            callerCache: caches.callers, injectionCache: caches.injections, appCache: caches.apps,
            invalidations: publisher
        ) { await owned?.stop() }
        // Without a feed the caches are never enabled: this node reads everything from the database, but its
        // writes still reach the nodes that do cache.
        guard options.cachesTokens else { return storage }
        storage.invalidationFeed = PostgresInvalidationListener(
            configuration: configuration, channel: options.notificationChannel, caches: caches.all, logger: logger)
        return storage
    }

    /// The pool's settings for what a URL describes (the translation PostgresKit's documentation gives).
    private static func clientConfiguration(_ connection: PostgresConnection.Configuration) throws
        -> PostgresClient.Configuration
    {
        let tls: PostgresClient.Configuration.TLS =
            switch (connection.tls.isEnforced, connection.tls.isAllowed, connection.tls.sslContext) {
            case (true, _, let context?): .require(context.configuration)
            case (false, true, let context?): .prefer(context.configuration)
            default: .disable
            }
        guard let host = connection.host, let port = connection.port else {
            if let socket = connection.unixSocketPath {
                return .init(
                    unixSocketPath: socket, username: connection.username, password: connection.password,
                    database: connection.database)
            }
            throw StorageError.unavailable("a PostgreSQL URL needs a host or a socket path")
        }
        return .init(
            host: host, port: port, username: connection.username, password: connection.password,
            database: connection.database,
            tls: tls)
    }

    /// Applies pending migrations on one connection of their own, so opening needs no running pool.
    private static func migrate(url: String, logger: Logger) async throws {
        let location = DatabaseLocation.postgres(url: url)
        let connection = try await location.singlePostgresConnection(url: url, logger: logger)
        do {
            try await SQLStoreContext(db: connection.sql(queryLogLevel: nil), errors: .postgres).run {
                try await SQLStorage.migrate(connection.sql(queryLogLevel: nil))
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            if case StorageError.unavailable(let message) = error {
                throw StorageError.unavailable("cannot open PostgreSQL database \(redacted(url)): \(message)")
            }
            throw error
        }
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
    package static func redacted(_ url: String) -> String { DatabaseLocation.redacted(url) }
}

/// The pool of a storage opened without one (CLI commands, tests), run from open until ``stop()``.
///
/// The server never takes this path: its service group runs the pool.
private final class OwnedClientRun: Sendable {
    private let running: Task<Void, Never>

    init(client: PostgresClient) {
        running = Task { await client.run() }
    }

    /// Closes the pool's connections and waits until it has stopped.
    func stop() async {
        running.cancel()
        await running.value
    }
}

/// Sends token invalidations to every node (including this one) with `pg_notify`, inside the transaction that
/// makes the change: PostgreSQL delivers a notification when, and only when, its transaction commits, so no
/// node can miss a committed revocation (a failed notify fails the write) or hear of one that was rolled back.
package struct PostgresNotifyPublisher: SessionAnnouncing {
    package let db: PostgresClientDatabase
    package let channel: String
    package let logger: Logger

    /// Writes through the stores built on ``db`` and notifies in one transaction on one connection.
    package func announcing(_ event: TokenInvalidation, _ write: () async throws -> Void) async throws {
        let channel = self.channel
        try await db.pinnedTransaction(write) { session in
            try await Self.notify([event], channel: channel, on: session)
        }
    }

    package func announce(_ events: [TokenInvalidation], on session: any SQLDatabase) async throws {
        try await Self.notify(events, channel: channel, on: session)
    }

    /// For an event with no write of its own to join: sent on a pooled connection, and logged if it fails.
    package func publish(_ event: TokenInvalidation) async {
        do {
            try await Self.notify([event], channel: channel, on: db)
        } catch {
            logger.warning(
                "could not announce a cache invalidation to other nodes",
                metadata: [
                    "error": "\(SQLErrorClassifier.postgres.describe(error))"
                ])
        }
    }

    private static func notify(_ events: [TokenInvalidation], channel: String, on session: any SQLDatabase) async throws
    {
        for event in events {
            try await session.raw("SELECT pg_notify(\(bind: channel), \(bind: event.payload))").run()
        }
    }
}
