import Foundation

/// Fixed-window rate limiting over the shared ``RateLimitStore``, timed by the injected clock.
///
/// A limit of 0 means "off" and never touches the store, so the default (API limits off) costs nothing.
public struct RateLimiter: Sendable {
    let store: any RateLimitStore
    let clock: any GatehouseClock

    public init(store: any RateLimitStore, clock: any GatehouseClock) {
        self.store = store
        self.clock = clock
    }

    /// The window containing `now` for a window length, as (start, end).
    func window(seconds: Int) -> (start: Int64, end: Date) {
        let now = Int64(clock.now().timeIntervalSince1970.rounded(.down))
        let length = Int64(max(seconds, 1))
        let start = now - ((now % length) + length) % length
        return (start, Date(timeIntervalSince1970: TimeInterval(start + length)))
    }

    /// Whether `key` has already used `limit` events in the current window (without counting a new one).
    public func isExhausted(_ key: String, limit: Int, windowSeconds: Int) async throws -> Bool {
        guard limit > 0 else { return false }
        let (start, _) = window(seconds: windowSeconds)
        return try await store.count(key: key, windowStart: start) >= limit
    }

    /// Counts one event; returns false when it goes over `limit` (the event should be refused).
    @discardableResult
    public func allow(_ key: String, limit: Int, windowSeconds: Int) async throws -> Bool {
        guard limit > 0 else { return true }
        let (start, end) = window(seconds: windowSeconds)
        let total = try await store.increment(key: key, windowStart: start, amount: 1, expiresAt: end)
        return total <= limit
    }

    /// Seconds until the current window ends (for "try again in" messages and `Retry-After`).
    public func secondsLeft(windowSeconds: Int) -> Int {
        max(1, Int(window(seconds: windowSeconds).end.timeIntervalSince(clock.now()).rounded(.up)))
    }

    public func reset(_ key: String) async throws {
        try await store.reset(key: key)
    }
}

/// Password-guessing protection for the login dialog and the console login: failures are counted per
/// account and per client IP; once either budget is spent the form answers 429 until the window ends.
struct LoginThrottle: Sendable {
    let limiter: RateLimiter
    let limits: LimitsConfiguration
    /// Separates dialog logins from console logins (`login`, `admin`).
    let scope: String

    init(services: GatehouseServices, scope: String) {
        limiter = RateLimiter(store: services.storage.rateLimits, clock: services.clock)
        limits = services.configuration.limits
        self.scope = scope
    }

    private func accountKey(_ email: String) -> String { "\(scope):acct:\(email.lowercased())" }
    private func ipKey(_ ip: String?) -> String { "\(scope):ip:\(ip ?? "unknown")" }

    /// Whether this account or IP must wait; checked before the (expensive) password hash is verified.
    func isLocked(email: String, ip: String?) async throws -> Bool {
        if try await limiter.isExhausted(accountKey(email), limit: limits.loginAttemptsPerAccount, windowSeconds: limits.loginWindowSeconds) {
            return true
        }
        return try await limiter.isExhausted(ipKey(ip), limit: limits.loginAttemptsPerIP, windowSeconds: limits.loginWindowSeconds)
    }

    func recordFailure(email: String, ip: String?) async throws {
        if !email.isEmpty {
            try await limiter.allow(accountKey(email), limit: limits.loginAttemptsPerAccount, windowSeconds: limits.loginWindowSeconds)
        }
        try await limiter.allow(ipKey(ip), limit: limits.loginAttemptsPerIP, windowSeconds: limits.loginWindowSeconds)
    }

    /// A correct password clears the account's failures (not the IP's: one good account must not unlock guessing).
    func recordSuccess(email: String) async throws {
        if limits.loginAttemptsPerAccount > 0 { try await limiter.reset(accountKey(email)) }
    }

    /// Minutes shown on the 429 page.
    var retryMinutes: Int { max(1, (limiter.secondsLeft(windowSeconds: limits.loginWindowSeconds) + 59) / 60) }
    var retryAfterSeconds: Int { limiter.secondsLeft(windowSeconds: limits.loginWindowSeconds) }
}
