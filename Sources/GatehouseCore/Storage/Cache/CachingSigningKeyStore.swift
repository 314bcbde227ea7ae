import Foundation

/// A `SigningKeyStore` that answers `all()` from a ``SigningKeyCache`` and invalidates it (here and, through the
/// publisher, on every other node) on every insert and retirement.
package struct CachingSigningKeyStore: SigningKeyStore {
    package let base: any SigningKeyStore
    /// The node's copy of the keys.
    package let cache: SigningKeyCache
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `publisher` reaches the other nodes.
    package init(base: any SigningKeyStore, cache: SigningKeyCache, publisher: any TokenInvalidationPublisher) {
        self.base = base
        self.cache = cache
        self.publisher = publisher
    }

    package func insert(_ key: SigningKeyRecord) async throws {
        try await invalidating(.signingKeys, local: cache, publisher: publisher) { try await base.insert(key) }
    }

    package func all() async throws -> [SigningKeyRecord] {
        try await cache.keys { try await base.all() }
    }

    package func retire(kid: String, at: Date, publishUntil: Date) async throws {
        try await invalidating(.signingKeys, local: cache, publisher: publisher) {
            try await base.retire(kid: kid, at: at, publishUntil: publishUntil)
        }
    }
}
