import Foundation

/// Tells the other nodes on the same database that cached token lookups are stale.
///
/// SQLite has one node, so ``LocalTokenInvalidation`` does nothing; PostgreSQL sends a `NOTIFY` that every
/// node's listener turns into ``TokenLookupCache/invalidate(_:)``.
package protocol TokenInvalidationPublisher: Sendable {
    /// Tells the other nodes about a change that has already happened (or that a caller collects, as a
    /// transaction does until it commits). Failures are the publisher's to log.
    func publish(_ event: TokenInvalidation) async

    /// Runs `write` and announces `event` as one whole: either both happen or neither does. Every caching
    /// decorator's write comes through here (``invalidating(_:local:publisher:_:)``).
    ///
    /// The default runs `write`, then ``publish(_:)``: right where nothing is sent (SQLite has one node). A
    /// publisher that tells other nodes must not let a committed write go unannounced, or they would keep
    /// serving a revoked token from their caches: PostgreSQL's sends its `NOTIFY` inside `write`'s transaction.
    func announcing(_ event: TokenInvalidation, _ write: () async throws -> Void) async throws
}

extension TokenInvalidationPublisher {
    package func announcing(_ event: TokenInvalidation, _ write: () async throws -> Void) async throws {
        try await write()
        await publish(event)
    }
}

/// The single-node publisher: the local cache is already cleared by ``CachingTokenStore``.
package struct LocalTokenInvalidation: TokenInvalidationPublisher {
    package init() {}
    package func publish(_ event: TokenInvalidation) async {}
}

/// A `TokenStore` that answers `find(tokenHash:)` from a ``TokenLookupCache`` and invalidates it (here and, through
/// the publisher, on every other node) whenever a token is revoked or its expiry changes.
///
/// The local cache is cleared before the change is published and again after the change committed, so a
/// lookup racing the write on this node cannot keep the old record.
package struct CachingTokenStore: TokenStore {
    package let base: any TokenStore
    package let cache: TokenLookupCache
    package let publisher: any TokenInvalidationPublisher
    /// The node's other caches built on token records (resolved callers), cleared at once with `cache`.
    package let others: any CacheInvalidationTarget

    /// Wraps `base`; `publisher` reaches the other nodes; `others` are this node's caches that also hold
    /// token records (they may include `cache` itself).
    package init(
        base: any TokenStore, cache: TokenLookupCache, publisher: any TokenInvalidationPublisher,
        alsoInvalidating others: any CacheInvalidationTarget = NodeCaches([])
    ) {
        self.base = base
        self.cache = cache
        self.publisher = publisher
        self.others = others
    }

    package func insert(_ token: TokenRecord) async throws {
        try await base.insert(token)
    }

    package func find(tokenHash: String) async throws -> TokenRecord? {
        try await cache.lookup(tokenHash) { try await base.find(tokenHash: tokenHash) }
    }

    package func setExpiry(id: String, expiresAt: Date?) async throws {
        try await changing(.token(id: id)) { try await base.setExpiry(id: id, expiresAt: expiresAt) }
    }

    package func revoke(id: String, at: Date) async throws -> [TokenRecord] {
        try await revoking(.token(id: id)) { try await base.revoke(id: id, at: at) }
    }

    package func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        try await revoking(.appUser(appID: appID, userID: userID)) {
            try await base.revokeAll(appID: appID, userID: userID, at: at)
        }
    }

    package func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        try await revoking(.user(id: userID)) { try await base.revokeAll(userID: userID, at: at) }
    }

    package func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        try await revoking(.code(id: codeID)) { try await base.revokeAll(codeID: codeID, at: at) }
    }

    package func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        try await base.live(appID: appID, userID: userID, now: now)
    }

    private func changing(_ event: TokenInvalidation, _ write: () async throws -> Void) async throws {
        try await invalidating(event, local: NodeCaches([cache, others]), publisher: publisher, write)
    }

    private func revoking(
        _ event: TokenInvalidation, _ write: () async throws -> [TokenRecord]
    ) async throws -> [TokenRecord] {
        var revoked: [TokenRecord] = []
        try await changing(event) { revoked = try await write() }
        return revoked
    }
}
