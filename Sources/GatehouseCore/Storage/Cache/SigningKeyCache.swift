import Foundation

/// The node's copy of the `signing_keys` table, so signing an id_token and serving the JWKS read no database.
///
/// Same rules as ``TokenLookupCache``: a rotation (``TokenInvalidation/signingKeys`` or ``TokenInvalidation/all``)
/// drops the copy and bumps a generation so a read racing it does not store the old set; while disabled (the
/// PostgreSQL listener is down) nothing is kept; a copy older than `timeToLive` is reread as a last safety net.
/// An empty table is never cached, so the first key made on any node is found at once.
///
/// Only facts are cached: which key is active and which are still published is decided by ``KeyRing`` on
/// every call from these records and the injected clock.
public final class SigningKeyCache: CacheInvalidationTarget {
    package struct State {
        var keys: [SigningKeyRecord]?
        var storedAt: ContinuousClock.Instant = .now
        var generation: UInt64 = 0
        var enabled: Bool
    }

    private let state: LockedValue<State>
    package let timeToLive: Duration

    /// - Parameter enabled: whether the keys may be cached from the start (false until a listener is connected).
    public init(timeToLive: Duration = .seconds(300), enabled: Bool = true) {
        self.timeToLive = timeToLive
        self.state = LockedValue(State(enabled: enabled))
    }

    /// The cached keys, or the ones `load` reads (kept when not empty and no invalidation happened meanwhile).
    public func keys(load: () async throws -> [SigningKeyRecord]) async throws -> [SigningKeyRecord] {
        let now = ContinuousClock.now
        let (hit, generation) = state.withLockedValue { state -> ([SigningKeyRecord]?, UInt64?) in
            guard state.enabled else { return (nil, nil) }
            if let keys = state.keys, now - state.storedAt < timeToLive { return (keys, state.generation) }
            state.keys = nil
            return (nil, state.generation)
        }
        if let hit { return hit }
        let keys = try await load()
        if !keys.isEmpty, let generation {
            state.withLockedValue { state in
                guard state.enabled, state.generation == generation else { return }
                state.keys = keys
                state.storedAt = .now
            }
        }
        return keys
    }

    public func invalidate(_ event: TokenInvalidation) {
        guard event == .signingKeys || event == .all else { return }
        state.withLockedValue { state in
            state.generation &+= 1
            state.keys = nil
        }
    }

    public func setEnabled(_ enabled: Bool) {
        state.withLockedValue { state in
            state.generation &+= 1
            state.keys = nil
            state.enabled = enabled
        }
    }

    /// Whether the keys are currently held (for tests).
    public var isCached: Bool { state.withLockedValue { $0.keys != nil } }

    /// Whether the keys may currently be cached.
    public var isEnabled: Bool { state.withLockedValue { $0.enabled } }
}

/// A `SigningKeyStore` that answers `all()` from a ``SigningKeyCache`` and invalidates it (here and, through the
/// publisher, on every other node) on every insert and retirement.
public struct CachingSigningKeyStore: SigningKeyStore {
    package let base: any SigningKeyStore
    /// The node's copy of the keys.
    public let cache: SigningKeyCache
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `publisher` reaches the other nodes.
    public init(base: any SigningKeyStore, cache: SigningKeyCache, publisher: any TokenInvalidationPublisher) {
        self.base = base
        self.cache = cache
        self.publisher = publisher
    }

    public func insert(_ key: SigningKeyRecord) async throws {
        try await invalidating(.signingKeys, local: cache, publisher: publisher) { try await base.insert(key) }
    }

    public func all() async throws -> [SigningKeyRecord] {
        try await cache.keys { try await base.all() }
    }

    public func retire(kid: String, at: Date, publishUntil: Date) async throws {
        try await invalidating(.signingKeys, local: cache, publisher: publisher) {
            try await base.retire(kid: kid, at: at, publishUntil: publishUntil)
        }
    }
}
