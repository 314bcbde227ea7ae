import Foundation

/// Fixed-window counters shared by every node on the database: password attempts, API calls.
///
/// Keys are opaque strings chosen by ``RateLimiter`` (`login:acct:<email>`, `api:app:<id>` …); a window is
/// identified by its start in unix seconds, so counters of different nodes with the same clock agree.
package protocol RateLimitStore: Sendable {
    /// Adds `amount` to the counter for (`key`, `windowStart`) and returns the new total. Atomic across nodes.
    func increment(key: String, windowStart: Int64, amount: Int, expiresAt: Date) async throws -> Int
    /// The counter's current total (0 when absent).
    func count(key: String, windowStart: Int64) async throws -> Int
    /// Forgets every window of `key` (a successful login clears its account's failures).
    func reset(key: String) async throws
    /// Deletes counters whose window ended before `now`; returns how many.
    @discardableResult func purge(expiredBefore now: Date) async throws -> Int
}
