import Foundation

/// Fixed-window rate limiting over the shared ``RateLimitStore``, timed by the injected clock.
///
/// A limit of 0 means "off" and never touches the store, so the default (API limits off) costs nothing.
package struct RateLimiter: Sendable {
    package let store: any RateLimitStore
    package let clock: any GatehouseClock

    package init(store: any RateLimitStore, clock: any GatehouseClock) {
        self.store = store
        self.clock = clock
    }

    /// The window containing `now` for a window length, as (start, end).
    package func window(seconds: Int) -> (start: Int64, end: Date) {
        let now = Int64(clock.now().timeIntervalSince1970.rounded(.down))
        let length = Int64(max(seconds, 1))
        let start = now - ((now % length) + length) % length
        return (start, Date(timeIntervalSince1970: TimeInterval(start + length)))
    }

    /// Counts one event; returns false when it goes over `limit` (the event should be refused).
    @discardableResult
    package func allow(_ key: String, limit: Int, windowSeconds: Int) async throws -> Bool {
        guard limit > 0 else { return true }
        let (start, end) = window(seconds: windowSeconds)
        let total = try await store.increment(key: key, windowStart: start, amount: 1, expiresAt: end)
        return total <= limit
    }

    /// Seconds until the current window ends (for "try again in" messages and `Retry-After`).
    package func secondsLeft(windowSeconds: Int) -> Int {
        max(1, Int(window(seconds: windowSeconds).end.timeIntervalSince(clock.now()).rounded(.up)))
    }

    package func reset(_ key: String) async throws {
        try await store.reset(key: key)
    }

    /// Gives back one event counted by ``allow(_:limit:windowSeconds:)`` in the current window (a success that
    /// should not use up the budget meant for failures).
    package func refund(_ key: String, limit: Int, windowSeconds: Int) async throws {
        guard limit > 0 else { return }
        let (start, end) = window(seconds: windowSeconds)
        _ = try await store.increment(key: key, windowStart: start, amount: -1, expiresAt: end)
    }
}
