import GatehouseCore
import Foundation

/// The per-account budget that holds whatever the client network: guesses spread over many networks (IPv6 hands
/// out /64s by the thousand) all count here.
///
/// Past `limits.login_attempts_per_account_all_networks` attempts in the account window, the account is slowed,
/// never locked: each further attempt is checked only once a delay has passed since the last checked one, and the
/// delay doubles with every attempt past the budget (1 s, 2 s, 4 s …) up to `limits.login_slowdown_max_seconds`.
/// An attempt that comes too early is answered "try again in X" without its password being checked.
///
/// A lockout would hand an attacker a way to keep the owner out, so two things keep the owner in:
/// - networks the account logged in from in the last 30 to 60 days (``knownNetworkLifetime``) are not counted nor slowed (they still
///   have their own per-(account, network) budget), so the owner at home or at work never notices an attack;
/// - from a new network the owner waits at most the cap, then has a turn like anyone else.
///
/// All state is counters in the shared ``RateLimitStore``, so several nodes enforce one slowdown. The next allowed
/// time is a counter too, and each turn is claimed by a counter keyed on that time, so parallel attempts cannot
/// share one turn.
struct AccountSlowdown: Sendable {
    let limiter: RateLimiter
    let scope: String
    /// Attempts per window before the delays start; 0 turns the slowdown off.
    let budget: Int
    let windowSeconds: Int
    let maxDelaySeconds: Int
    /// Whether the account's own networks pass uncounted (passwords: yes; login codes, which only someone who
    /// has the password reaches: no).
    let exemptsKnownNetworks: Bool

    /// The password budget: `limits.login_attempts_per_account_all_networks` a `login_account_window_seconds`.
    init(limiter: RateLimiter, limits: LimitsConfiguration, scope: String) {
        self.init(
            limiter: limiter, scope: scope, budget: limits.loginAttemptsPerAccountAllNetworks,
            windowSeconds: limits.loginAccountWindowSeconds, maxDelaySeconds: limits.loginSlowdownMaxSeconds,
            exemptsKnownNetworks: true)
    }

    init(
        limiter: RateLimiter, scope: String, budget: Int, windowSeconds: Int, maxDelaySeconds: Int,
        exemptsKnownNetworks: Bool
    ) {
        self.limiter = limiter
        self.scope = scope
        self.budget = budget
        self.windowSeconds = windowSeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.exemptsKnownNetworks = exemptsKnownNetworks
    }

    /// How long a successful login vouches for its network on that account.
    static let knownNetworkLifetime = 30 * 86_400

    private var store: any RateLimitStore { limiter.store }
    private func account(_ email: String) -> String { "\(scope):acct-all:\(email.lowercased())" }

    /// Counts one attempt; nil when it may be checked now, or the seconds to wait.
    func reserve(email: String, ip: String?) async throws -> Int? {
        guard budget > 0 else { return nil }
        if exemptsKnownNetworks, try await isKnown(email: email, ip: ip) { return nil }
        let window = limiter.window(seconds: windowSeconds)
        let total = try await store.increment(
            key: account(email), windowStart: window.start, amount: 1, expiresAt: window.end)
        guard total > budget else { return nil }
        // The earliest time (unix seconds) the next attempt may be checked; 0 until the first slowed attempt.
        let nextKey = account(email) + ":next"
        let next = try await store.count(key: nextKey, windowStart: window.start)
        let now = Int(limiter.clock.now().timeIntervalSince1970.rounded(.down))
        guard now >= next else { return next - now }
        // One claim per turn: of parallel attempts that all read the same `next`, exactly one gets it.
        let claims = try await store.increment(
            key: "\(nextKey):\(next)", windowStart: window.start, amount: 1, expiresAt: window.end)
        guard claims == 1 else { return 1 }
        let delay = min(maxDelaySeconds, 1 << min(total - budget - 1, 30))
        _ = try await store.increment(
            key: nextKey, windowStart: window.start, amount: now + delay - next, expiresAt: window.end)
        return nil
    }

    /// A correct password: its attempt was no guess, and its network now vouches for the owner.
    func succeeded(email: String, ip: String?) async throws {
        guard budget > 0 else { return }
        let window = limiter.window(seconds: Self.knownNetworkLifetime)
        _ = try await store.increment(
            key: knownKey(email, ip), windowStart: window.start, amount: 1,
            expiresAt: window.end.addingTimeInterval(TimeInterval(Self.knownNetworkLifetime)))
    }

    /// Hands back one attempt that turned out right (a login code that was accepted), so the budget counts only
    /// the wrong ones and an owner who logs in often is never slowed or warned about their own logins.
    func refund(email: String) async throws {
        guard budget > 0 else { return }
        try await limiter.refund(account(email), limit: budget, windowSeconds: windowSeconds)
    }

    /// Attempts counted in the current window (the login code checkpoint mails the owner once it passes the budget).
    func attempts(email: String) async throws -> Int {
        try await store.count(key: account(email), windowStart: limiter.window(seconds: windowSeconds).start)
    }

    /// Whether the account logged in from this network in the current or the previous lifetime-long window.
    func isKnown(email: String, ip: String?) async throws -> Bool {
        let window = limiter.window(seconds: Self.knownNetworkLifetime)
        let key = knownKey(email, ip)
        if try await store.count(key: key, windowStart: window.start) > 0 { return true }
        return try await store.count(key: key, windowStart: window.start - Int64(Self.knownNetworkLifetime)) > 0
    }

    private func knownKey(_ email: String, _ ip: String?) -> String {
        "\(scope):known:\(email.lowercased()):\(ClientNetwork.key(ip))"
    }
}
