import GatehouseCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit

/// Keeps one dedicated connection `LISTEN`ing on the invalidation channel and applies every notification to
/// the node's caches (``NodeCaches``: token lookups, signing keys).
///
/// The caches are enabled only while the listener is connected: it is switched on (empty) right after `LISTEN`
/// succeeded and off as soon as the connection fails, so events missed while disconnected cannot leave stale
/// entries. A ping every ``pingInterval`` notices a silently dead connection. Reconnects retry every
/// ``retryDelay`` until ``stop()``.
package final class PostgresInvalidationListener: Sendable {
    package static let pingInterval: Duration = .seconds(1)
    package static let retryDelay: Duration = .milliseconds(250)

    private let task: Task<Void, Never>

    private init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Starts listening in the background.
    package static func start(
        configuration: SQLPostgresConfiguration, channel: String, caches: any CacheInvalidationTarget, logger: Logger
    ) -> PostgresInvalidationListener {
        PostgresInvalidationListener(task: Task {
            while !Task.isCancelled {
                await listenOnce(configuration: configuration, channel: channel, caches: caches, logger: logger)
                caches.setEnabled(false)
                try? await Task.sleep(for: retryDelay)
            }
        })
    }

    /// Stops listening and waits for the connection to close.
    package func stop() async {
        task.cancel()
        await task.value
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
            return // PostgreSQL is down or unreachable; the caller retries.
        }
        do {
            try await connection.listen(on: channel) { notifications in
                caches.setEnabled(true)
                logger.debug("token invalidation listener connected", metadata: ["channel": "\(channel)"])
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            caches.invalidate(TokenInvalidation(payload: notification.payload))
                        }
                        throw CancellationError()
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: pingInterval)
                            _ = try await connection.query("SELECT 1", logger: quiet).get()
                        }
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
        } catch {
            caches.setEnabled(false)
            if !Task.isCancelled {
                logger.warning("token invalidation listener lost its connection; token caching paused", metadata: [
                    "error": "\(SQLErrorClassifier.postgres.describe(error))",
                ])
            }
        }
        try? await connection.close()
    }
}
