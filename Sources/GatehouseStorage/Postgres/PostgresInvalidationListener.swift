import GatehouseCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit

/// Keeps one dedicated connection `LISTEN`ing on the invalidation channel and applies every notification to
/// the node's caches (``NodeCaches``: tokens, resolved callers, apps, signing keys, injected errors).
///
/// The caches are enabled only while the listener is connected: it is switched on (empty) right after `LISTEN`
/// succeeded and off as soon as the connection fails, so events missed while disconnected cannot leave stale
/// entries. A closed connection is noticed at once; a ping every ``pingInterval``, answered within
/// ``pingTimeout``, notices a silently dead one. Reconnects retry every ``retryDelay`` until the task running
/// it is cancelled. It is PostgreSQL's ``CacheInvalidationFeed``.
package struct PostgresInvalidationListener: CacheInvalidationFeed {
    package static let pingInterval: Duration = .seconds(1)
    package static let retryDelay: Duration = .milliseconds(250)
    /// How long a ping may go unanswered before the connection counts as dead.
    package static let pingTimeout: TimeAmount = .seconds(2)

    let configuration: SQLPostgresConfiguration
    let channel: String
    let caches: any CacheInvalidationTarget
    let logger: Logger

    package init(
        configuration: SQLPostgresConfiguration, channel: String, caches: any CacheInvalidationTarget, logger: Logger
    ) {
        self.configuration = configuration
        self.channel = channel
        self.caches = caches
        self.logger = logger
    }

    /// Listens, reconnecting after every lost connection, until the task is cancelled.
    package func run() async {
        while !Task.isCancelled {
            await Self.listenOnce(configuration: configuration, channel: channel, caches: caches, logger: logger)
            caches.setEnabled(false)
            try? await Task.sleep(for: Self.retryDelay)
        }
    }

    /// One connection's life: connect, LISTEN, enable the cache, apply notifications until it fails.
    private static func listenOnce(
        configuration: SQLPostgresConfiguration, channel: String, caches: any CacheInvalidationTarget, logger: Logger
    ) async {
        let quiet = {
            var quiet = logger
            quiet.logLevel = .critical
            return quiet
        }()
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration.coreConfiguration,
                id: 0, logger: quiet)
        } catch {
            return  // PostgreSQL is down or unreachable; the caller retries.
        }
        // The caches are switched off by the event loop the moment the channel closes, not when this task next
        // runs: on a busy node the cooperative threads may be taken for seconds, and the cache must not outlive
        // its connection meanwhile.
        let liveness = ConnectionLiveness(caches: caches)
        connection.closeFuture.whenComplete { _ in liveness.closed() }
        do {
            try await connection.listen(on: channel) { notifications in
                guard liveness.enableIfOpen() else { throw ConnectionEnded() }
                logger.debug("token invalidation listener connected", metadata: ["channel": "\(channel)"])
                // Each child ends by throwing; the first to end cancels the others. Every await on the
                // connection is bounded (`valueOrGiveUp`), so a dead connection can never keep the group, and
                // with it this node's cache, alive.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            caches.invalidate(TokenInvalidation(payload: notification.payload))
                        }
                        throw ConnectionEnded()
                    }
                    group.addTask {
                        try await connection.closeFuture.valueOrGiveUp()
                        throw ConnectionEnded()
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: pingInterval)
                            _ = try await connection.query("SELECT 1", logger: quiet).valueOrGiveUp(after: pingTimeout)
                        }
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
        } catch {
            caches.setEnabled(false)
            if !Task.isCancelled {
                logger.warning(
                    "token invalidation listener lost its connection; token caching paused",
                    metadata: [
                        "error": "\(SQLErrorClassifier.postgres.describe(error))"
                    ])
            }
        }
        caches.setEnabled(false)
        // Not `valueOrGiveUp`: a channel's close always completes, and the connection must not be released
        // before it has (postgres-nio asserts that), even when this task was cancelled by `stop()`.
        let closing: EventLoopFuture<Void> = connection.close()
        try? await closing.get()
    }

    /// Enables the caches only while one connection is open, atomically with respect to its closing.
    private final class ConnectionLiveness: Sendable {
        private let isClosed = NIOLockedValueBox(false)
        private let caches: any CacheInvalidationTarget

        init(caches: any CacheInvalidationTarget) { self.caches = caches }

        func closed() {
            isClosed.withLockedValue { isClosed in
                isClosed = true
                caches.setEnabled(false)
            }
        }

        func enableIfOpen() -> Bool {
            isClosed.withLockedValue { isClosed in
                if !isClosed { caches.setEnabled(true) }
                return !isClosed
            }
        }
    }

    private struct ConnectionEnded: Error, CustomStringConvertible {
        var description: String { "the connection closed" }
    }
}
