import Foundation

/// A node-local read-through cache keyed by token hash, invalidated per key through an index.
///
/// Correctness rules:
/// - Only found values are cached (a token minted on another node must be found at once).
/// - Every invalidation bumps a generation counter; a read that started before an invalidation does not
///   store its (possibly stale) result (see ``lookup(_:load:)`` and ``begin(_:)`` / ``store(_:for:ifGeneration:)``).
/// - While the node cannot hear other nodes' invalidations (``setEnabled(_:)`` false), nothing is served
///   from or stored in the cache; re-enabling clears it.
/// - Entries also expire after `timeToLive` as a last safety net, and the cache holds at most `capacity`
///   (the oldest entry makes room; see ``IndexedCacheEntries``).
/// - An invalidation touches only the entries it names, never a scan of the whole cache.
///
/// Values are facts read from the database, never verdicts: whatever depends on the time is decided by the
/// caller on every use.
package final class InvalidationCache<Value: CacheableFacts>: CacheInvalidationTarget {
    package struct State: Sendable {
        var entries = IndexedCacheEntries<Value>()
        var generation: UInt64 = 0
        var enabled: Bool
    }

    private let state: LockedValue<State>
    package let capacity: Int
    package let timeToLive: Duration
    private let clock: any GatehouseClock

    /// - Parameters:
    ///   - capacity: the most entries held; the oldest makes room for a new one.
    ///   - timeToLive: how long an entry may be served, on `clock`.
    ///   - enabled: whether lookups may be cached from the start (false until a listener is connected).
    ///   - clock: the node's clock; moving it (the emulator's clock control) ages the entries with it.
    package init(
        capacity: Int = 50_000, timeToLive: Duration = .seconds(300), enabled: Bool = true,
        clock: any GatehouseClock = SystemClock()
    ) {
        self.capacity = capacity
        self.timeToLive = timeToLive
        self.clock = clock
        self.state = LockedValue(State(enabled: enabled))
    }

    /// The cached value for `key`, or the one `load` reads (cached when found and still current).
    package func lookup(_ key: String, load: () async throws -> Value?) async throws -> Value? {
        let (hit, generation) = begin(key)
        if let hit { return hit }
        let value = try await load()
        if let value, let generation { store(value, for: key, ifGeneration: generation) }
        return value
    }

    /// The cached value for `key` if any, and the generation a read from the database must present to
    /// ``store(_:for:ifGeneration:)`` (nil while the cache is disabled).
    package func begin(_ key: String) -> (hit: Value?, generation: UInt64?) {
        let now = clock.now()
        return state.withLockedValue { state in
            guard state.enabled else { return (nil, nil) }
            if let entry = state.entries[key] {
                if timeToLive.holds(from: entry.storedAt, at: now) { return (entry.value, state.generation) }
                state.entries.remove(key)
            }
            return (nil, state.generation)
        }
    }

    /// Stores `value` unless an invalidation happened since ``begin(_:)`` returned `generation`.
    package func store(_ value: Value, for key: String, ifGeneration generation: UInt64) {
        let now = clock.now()
        state.withLockedValue { state in
            guard state.enabled, state.generation == generation else { return }
            state.entries.insert(value, for: key, at: now, capacity: capacity)
        }
    }

    /// Drops the entries `event` makes stale.
    package func invalidate(_ event: TokenInvalidation) {
        // Key rotations and injections never touch these values: keep the generation so no read in flight
        // is wasted.
        if event.dependency == nil, event != .all { return }
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.remove(matching: event)
        }
    }

    /// Turns caching on or off; both directions start from an empty cache.
    package func setEnabled(_ enabled: Bool) {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries = IndexedCacheEntries()
            state.enabled = enabled
        }
    }

    /// Whether lookups are currently cached.
    package var isEnabled: Bool { state.withLockedValue { $0.enabled } }

    /// Whether a value for `key` is held (for tests).
    package func contains(_ key: String) -> Bool { state.withLockedValue { $0.entries[key] != nil } }

    /// How many values are cached (for tests).
    package var count: Int { state.withLockedValue { $0.entries.count } }
}

/// The node-local cache of token records by hash, so a token check skips one database round trip.
package typealias TokenLookupCache = InvalidationCache<TokenRecord>

extension Duration {
    /// Whether something stored at `storedAt` is still within this time-to-live at `now`. A clock moved back
    /// before `storedAt` (the emulator's clock control, a wall-clock step) counts as expired, never as younger.
    func holds(from storedAt: Date, at now: Date) -> Bool {
        let age = now.timeIntervalSince(storedAt)
        let (seconds, attoseconds) = components
        return age >= 0 && age < Double(seconds) + Double(attoseconds) / 1e18
    }
}
