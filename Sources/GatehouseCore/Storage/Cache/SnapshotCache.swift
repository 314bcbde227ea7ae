import Foundation

/// A node's copy of one whole small table, so reading it costs no database round trip: the signing keys (every
/// id_token and the JWKS read them) and the injected errors (every Graph call in development mode reads them).
///
/// Same rules as ``InvalidationCache``: the event that names the table (`event`) or ``TokenInvalidation/all``
/// drops the copy and bumps a generation so a read racing it does not store the old table; while disabled (the
/// PostgreSQL listener is down) nothing is kept; a copy older than `timeToLive` is reread as a last safety net.
///
/// Only facts are cached: which key is active, or whether an injection applies to a call, is decided on every
/// call from these records and the injected clock.
package final class SnapshotCache<Value: Sendable>: CacheInvalidationTarget {
    package struct State {
        var value: Value?
        var storedAt = Date.distantPast
        var generation: UInt64 = 0
        var enabled: Bool
    }

    private let state: LockedValue<State>
    /// The event (besides ``TokenInvalidation/all``) that makes the copy stale.
    package let event: TokenInvalidation
    package let timeToLive: Duration
    private let keeps: @Sendable (Value) -> Bool
    private let clock: any GatehouseClock

    /// - Parameters:
    ///   - event: the invalidation that names this table.
    ///   - enabled: whether the table may be cached from the start (false until a listener is connected).
    ///   - keeps: whether a value read from the database may be kept (the signing keys never keep an empty table,
    ///     so the first key made on any node is found at once).
    ///   - clock: the node's clock, on which `timeToLive` runs.
    package init(
        event: TokenInvalidation, timeToLive: Duration = .seconds(300), enabled: Bool = true,
        clock: any GatehouseClock = SystemClock(), keeps: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) {
        self.event = event
        self.clock = clock
        self.timeToLive = timeToLive
        self.keeps = keeps
        self.state = LockedValue(State(enabled: enabled))
    }

    /// The cached table, or the one `load` reads (kept when `keeps` allows and no invalidation happened meanwhile).
    package func value(load: () async throws -> Value) async throws -> Value {
        let (hit, generation) = peek()
        if let hit { return hit }
        let value = try await load()
        if let generation, keeps(value) {
            let now = clock.now()
            state.withLockedValue { state in
                guard state.enabled, state.generation == generation else { return }
                state.value = value
                state.storedAt = now
            }
        }
        return value
    }

    /// The cached table if one is held and fresh, and the generation a read must present to keep its result
    /// (nil while disabled).
    package func peek() -> (hit: Value?, generation: UInt64?) {
        let now = clock.now()
        return state.withLockedValue { state -> (Value?, UInt64?) in
            guard state.enabled else { return (nil, nil) }
            if let value = state.value, timeToLive.holds(from: state.storedAt, at: now) {
                return (value, state.generation)
            }
            state.value = nil
            return (nil, state.generation)
        }
    }

    package func invalidate(_ event: TokenInvalidation) {
        guard event == self.event || event == .all else { return }
        state.withLockedValue { state in
            state.generation &+= 1
            state.value = nil
        }
    }

    package func setEnabled(_ enabled: Bool) {
        state.withLockedValue { state in
            state.generation &+= 1
            state.value = nil
            state.enabled = enabled
        }
    }

    /// Whether a copy is currently held (for tests).
    package var isCached: Bool { state.withLockedValue { $0.value != nil } }

    /// Whether the table may currently be cached.
    package var isEnabled: Bool { state.withLockedValue { $0.enabled } }
}

/// The node's copy of the `signing_keys` table. An empty table is never kept.
package typealias SigningKeyCache = SnapshotCache<[SigningKeyRecord]>

extension SnapshotCache where Value == [SigningKeyRecord] {
    /// A signing-key cache: dropped by ``TokenInvalidation/signingKeys``; an empty table is never kept.
    package convenience init(
        timeToLive: Duration = .seconds(300), enabled: Bool = true, clock: any GatehouseClock = SystemClock()
    ) {
        self.init(event: .signingKeys, timeToLive: timeToLive, enabled: enabled, clock: clock, keeps: { !$0.isEmpty })
    }

    /// The cached keys, or the ones `load` reads.
    package func keys(load: () async throws -> [SigningKeyRecord]) async throws -> [SigningKeyRecord] {
        try await value(load: load)
    }
}

/// The node's copy of the `injected_errors` table, oldest first. Usually empty, and an empty table is kept
/// too: that is what lets a Graph call skip the database when nothing is injected.
package typealias InjectionCache = SnapshotCache<[InjectedErrorRecord]>

extension SnapshotCache where Value == [InjectedErrorRecord] {
    /// An injection cache: dropped by ``TokenInvalidation/injections``.
    package convenience init(
        timeToLive: Duration = .seconds(300), enabled: Bool = true, clock: any GatehouseClock = SystemClock()
    ) {
        self.init(event: .injections, timeToLive: timeToLive, enabled: enabled, clock: clock)
    }
}
