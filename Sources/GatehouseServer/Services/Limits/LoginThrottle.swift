import GatehouseCore
import Foundation

/// Password-guessing protection shared by every password form (through ``PasswordCheck``).
///
/// Each attempt is **reserved before the password is verified**: the counters are incremented atomically in the
/// shared ``RateLimitStore`` first, and only an attempt that stays within budget reaches bcrypt. Twenty parallel
/// guesses therefore cannot all slip past a "check, then count later" gap.
///
/// Four budgets:
/// - per (account, client network): `limits.login_attempts_per_account`. Keyed on the client too, so a stranger
///   guessing from elsewhere never locks the owner out of their own account (no denial of service);
/// - per client network: `limits.login_attempts_per_ip`, across all accounts (stops spraying one password over
///   many accounts);
/// - per IPv6 /48: `limits.login_attempts_per_ipv6_48`, across all accounts (a /48 is 65,536 /64s);
/// - per account from every network: ``AccountSlowdown`` (a capped, doubling delay rather than a refusal, and
///   never for networks the owner logged in from).
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
    private var slowdown: AccountSlowdown { AccountSlowdown(limiter: limiter, limits: limits, scope: scope) }
    private func accountKey(_ email: String, _ ip: String?) -> String {
        "\(scope):acct:\(email.lowercased()):\(ClientNetwork.key(ip))"
    }
    private func ipKey(_ ip: String?) -> String { "\(scope):ip:\(ClientNetwork.key(ip))" }

    /// Counts one attempt against every budget; nil when the password may be checked, otherwise the seconds to
    /// wait (then the password must not be checked).
    func reserve(email: String, ip: String?) async throws -> Int? {
        var allowed = try await limiter.allow(ipKey(ip), limit: limits.loginAttemptsPerIP, windowSeconds: window)
        if let wide = ClientNetwork.slash48(ip) {
            allowed =
                try await limiter.allow(
                    "\(scope):ip48:\(wide)", limit: limits.loginAttemptsPerIPv6Slash48, windowSeconds: window)
                && allowed
        }
        allowed =
            try await limiter.allow(accountKey(email, ip), limit: limits.loginAttemptsPerAccount, windowSeconds: window)
            && allowed
        guard allowed else { return retryAfterSeconds }
        // Last, so an attempt refused above does not take the account's next turn.
        return try await slowdown.reserve(email: email, ip: ip)
    }

    /// A correct password clears this client's failures on the account, hands back its network attempt (people
    /// behind one NAT who type their passwords right never use up each other's budget), and marks the network
    /// as the owner's.
    func succeeded(email: String, ip: String?) async throws {
        if limits.loginAttemptsPerAccount > 0 { try await limiter.reset(accountKey(email, ip)) }
        try await limiter.refund(ipKey(ip), limit: limits.loginAttemptsPerIP, windowSeconds: window)
        if let wide = ClientNetwork.slash48(ip) {
            try await limiter.refund(
                "\(scope):ip48:\(wide)", limit: limits.loginAttemptsPerIPv6Slash48, windowSeconds: window)
        }
        try await slowdown.succeeded(email: email, ip: ip)
    }

    /// Seconds until the login window ends (`Retry-After` for the windowed budgets).
    var retryAfterSeconds: Int { limiter.secondsLeft(windowSeconds: window) }

    /// Minutes shown on the 429 page for a wait of `seconds`.
    static func minutes(_ seconds: Int) -> Int { max(1, (seconds + 59) / 60) }
}

/// The rate-limit key of a client address: IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as the IPv4 address.
enum ClientNetwork {
    static func key(_ ip: String?) -> String {
        guard let ip, let bytes = IPRange.parse(ip) else { return ip ?? "unknown" }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        if isMappedIPv4(bytes) { return bytes.suffix(4).map(String.init).joined(separator: ".") }
        return "v6:\(hex(bytes.prefix(8)))/64"
    }

    /// The IPv6 /48 holding the address (a typical site's allocation); nil for IPv4 and IPv4-mapped addresses.
    static func slash48(_ ip: String?) -> String? {
        guard let ip, let bytes = IPRange.parse(ip), bytes.count == 16, !isMappedIPv4(bytes) else { return nil }
        return "v6:\(hex(bytes.prefix(6)))/48"
    }

    private static func isMappedIPv4(_ bytes: [UInt8]) -> Bool {
        bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
