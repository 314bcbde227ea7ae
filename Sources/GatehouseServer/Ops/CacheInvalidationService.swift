import GatehouseCore
import ServiceLifecycle

/// Runs the storage's ``CacheInvalidationFeed`` (the SQLite change watcher or the PostgreSQL listener) as a
/// service of the server's group, so the node's caches are on exactly while the group runs it.
///
/// On graceful shutdown it stops at once: requests still draining then read the database instead of the caches,
/// which is always correct.
package struct CacheInvalidationService: Service {
    let feed: any CacheInvalidationFeed

    package init(feed: any CacheInvalidationFeed) {
        self.feed = feed
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await feed.run() }
    }
}
