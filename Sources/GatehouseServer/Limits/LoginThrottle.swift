import GatehouseCore
import Foundation

/// Password-guessing protection shared by every password form (through ``PasswordCheck``).
///
/// Each attempt is **reserved before the password is verified**: the counters are incremented atomically in the
/// shared ``RateLimitStore`` first, and only an attempt that stays within budget reaches bcrypt. Twenty parallel
/// guesses therefore cannot all slip past a "check, then count later" gap.
///
/// Two budgets, both per window:
/// - per (account, client network): `limits.login_attempts_per_account`. Keyed on the client too, so a stranger
///   guessing from elsewhere never locks the owner out of their own account (no denial of service);
/// - per client network: `limits.login_attempts_per_ip`, across all accounts (stops spraying one password over
///   many accounts).
///
/// A client network is the IPv4 address, or the IPv6 /64 (one subscriber usually owns a whole /64, so keying on
/// the full address would hand an attacker 2^64 fresh budgets).
struct LoginThrottle: Sendable {
    let limiter: RateLimiter
    let limits: LimitsConfiguration
    /// Separates people's logins from console logins (`login`, `admin`): different account tables.
    let scope: String

    init(services: GatehouseServices, scope: String) {
        limiter = RateLimiter(store: services.storage.rateLimits, clock: services.clock)
        limits = services.configuration.limits
        self.scope = scope
    }

    private var window: Int { limits.loginWindowSeconds }
    private func accountKey(_ email: String, _ ip: String?) -> String {
        "\(scope):acct:\(email.lowercased()):\(ClientNetwork.key(ip))"
    }
    private func ipKey(_ ip: String?) -> String { "\(scope):ip:\(ClientNetwork.key(ip))" }

    /// Counts one attempt against both budgets; false when either is spent (then the password must not be checked).
    func reserve(email: String, ip: String?) async throws -> Bool {
        let network = try await limiter.allow(ipKey(ip), limit: limits.loginAttemptsPerIP, windowSeconds: window)
        let account = try await limiter.allow(accountKey(email, ip), limit: limits.loginAttemptsPerAccount, windowSeconds: window)
        return network && account
    }

    /// A correct password clears this client's failures on the account and hands back its network attempt, so
    /// people behind one NAT who type their passwords right never use up each other's budget.
    func succeeded(email: String, ip: String?) async throws {
        if limits.loginAttemptsPerAccount > 0 { try await limiter.reset(accountKey(email, ip)) }
        try await limiter.refund(ipKey(ip), limit: limits.loginAttemptsPerIP, windowSeconds: window)
    }

    /// Minutes shown on the 429 page.
    var retryMinutes: Int { max(1, (limiter.secondsLeft(windowSeconds: window) + 59) / 60) }
    var retryAfterSeconds: Int { limiter.secondsLeft(windowSeconds: window) }
}

/// The rate-limit key of a client address: IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as the IPv4 address.
enum ClientNetwork {
    static func key(_ ip: String?) -> String {
        guard let ip, let bytes = IPRange.parse(ip) else { return ip ?? "unknown" }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
            return bytes.suffix(4).map(String.init).joined(separator: ".")
        }
        let hex = bytes.prefix(8).map { String(format: "%02x", $0) }.joined()
        return "v6:\(hex)/64"
    }
}
