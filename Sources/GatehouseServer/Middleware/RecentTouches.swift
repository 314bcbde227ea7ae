import Foundation
import GatehouseCore

/// The sessions whose activity this node recorded in the last interval, so a busy session is written at most
/// once per interval (issue 39, finding 2).
///
/// Only sessions that exist are remembered (the caller records a key after finding its session), so cookies made
/// up by strangers leave nothing here. The memory is two generations of one interval each: a key is found in
/// either, and at each turn the older generation is dropped whole. Every call does a constant amount of work under
/// the lock, however many keys there are, and the dropped generation is released after the lock. Past
/// `capacity` keys a generation takes no more: those sessions are looked up again next time, which costs the same
/// as the first time.
package final class RecentTouches: Sendable {
    private struct Generations {
        var current: [String: Date] = [:]
        var previous: [String: Date] = [:]
        var turnedAt: Date?
    }

    private let state = LockedValue(Generations())
    let interval: TimeInterval
    let capacity: Int

    package init(interval: TimeInterval, capacity: Int = 50_000) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Whether `key` was recorded less than an interval before `now`.
    func seen(_ key: String, now: Date) -> Bool {
        state.withLockedValue { state in
            guard let last = state.current[key] ?? state.previous[key] else { return false }
            return now.timeIntervalSince(last) < interval
        }
    }

    /// Remembers that `key`'s activity was recorded at `now`.
    func record(_ key: String, now: Date) {
        let dropped: [String: Date] = state.withLockedValue { state in
            var dropped: [String: Date] = [:]
            if let turned = state.turnedAt {
                if now.timeIntervalSince(turned) >= interval {
                    dropped = state.previous
                    state.previous = state.current
                    state.current = [:]
                    state.turnedAt = now
                }
            } else {
                state.turnedAt = now
            }
            if state.current.count < capacity || state.current[key] != nil { state.current[key] = now }
            return dropped
        }
        // Released here, outside the lock.
        _ = dropped
    }

    /// Keys held in both generations.
    package var count: Int { state.withLockedValue { $0.current.count + $0.previous.count } }
}
