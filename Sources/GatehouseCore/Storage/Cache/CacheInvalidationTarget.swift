import Foundation

/// A node-local cache that writes (on this node or, through the invalidation channel, on another) can make stale.
///
/// The PostgreSQL listener and the SQLite change watcher drive every cache of a node through this one seam, so
/// a new cache only has to conform to be kept current everywhere.
package protocol CacheInvalidationTarget: Sendable {
    /// Drops what `event` makes stale. Must also stop any lookup already in flight from storing its result.
    func invalidate(_ event: TokenInvalidation)
    /// Turns caching on or off; both directions start from an empty cache. Off while the node may be missing
    /// other nodes' events (its listener is down), so it serves only what the database says.
    func setEnabled(_ enabled: Bool)
}

/// Every cache of one node, addressed as one target.
package struct NodeCaches: CacheInvalidationTarget {
    /// The caches, in no particular order.
    package let targets: [any CacheInvalidationTarget]

    package init(_ targets: [any CacheInvalidationTarget]) {
        self.targets = targets
    }

    package func invalidate(_ event: TokenInvalidation) {
        for target in targets { target.invalidate(event) }
    }

    package func setEnabled(_ enabled: Bool) {
        for target in targets { target.setEnabled(enabled) }
    }
}

/// Runs one write the way every caching decorator must: drop the local entries, write and tell the other nodes
/// as one whole (``TokenInvalidationPublisher/announcing(_:_:)``), drop them again (a read that raced the write
/// may have stored the old value in between).
///
/// When the write or its announcement throws, neither happened: the first invalidation only cost a reload.
package func invalidating(
    _ event: TokenInvalidation, local: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher,
    _ write: () async throws -> Void
) async throws {
    local.invalidate(event)
    try await publisher.announcing(event, write)
    local.invalidate(event)
}
