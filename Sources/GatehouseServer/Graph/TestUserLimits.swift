import GatehouseCore
import Foundation
import GatehouseProtocol
import HummingbirdBcrypt
import NIOPosix

/// What one app token may spend on test users, so holding it gives no leverage over the node:
/// - `limits.test_users_per_app` test users per app (`(#2900) Too many test accounts`, as Facebook answers);
/// - `limits.test_user_creations_per_app` creations per app per `limits.test_user_window_seconds` (`(#4)`);
/// - `limits.test_user_tokens_per_app` access tokens minted by listing test users, per app per window (`(#4)`):
///   each listing mints a fresh 60-day token for every installed user on the page, up to 500 at a time.
///
/// The budgets are reserved before any work, as ``LoginThrottle`` does. The cap is counted before the insert, so
/// parallel creations can pass it by at most the number in flight, which the creation budget bounds.
struct TestUserLimits: Sendable {
    let services: GatehouseServices

    /// The bcrypt cost of test users' passwords. They are 72 random bits the server chose, so a slow hash adds no
    /// protection worth having (guessing 2^72 passwords is out of reach at any cost), while a login-strength hash
    /// (cost 11: 128 times the work) per creation would let an app token holder fill the thread pool that checks
    /// people's passwords at login. Logins verify these hashes like any other (bcrypt reads the cost from the hash).
    static let passwordCost = UInt8(PasswordCost.minimum)

    private var limits: LimitsConfiguration { services.configuration.limits }
    private var limiter: RateLimiter { RateLimiter(store: services.storage.rateLimits, clock: services.clock) }

    /// Counts one creation; throws the Facebook error when the app's budget or cap is spent.
    func reserveCreation(appID: String) async throws {
        try await reserveUpdate(appID: appID)
        try await checkCap(appID: appID)
    }

    /// Counts one creation or password change (each hashes a password) against the app's creation budget.
    func reserveUpdate(appID: String) async throws {
        if try await !limiter.allow(
            "testusers:create:\(appID)", limit: limits.testUserCreationsPerApp,
            windowSeconds: limits.testUserWindowSeconds)
        {
            services.metrics.rateLimited("test_users")
            throw GraphFailure(.appRateLimit)
        }
    }

    /// Throws `(#2900)` when the app holds as many test users (created or associated) as the cap allows.
    func checkCap(appID: String) async throws {
        let cap = limits.testUsersPerApp
        if cap > 0, try await services.storage.users.testUsers(appID: appID).count >= cap {
            throw GraphFailure(.tooManyTestAccounts)
        }
    }

    /// Counts `count` tokens a listing is about to mint; throws `(#4)` past the app's budget.
    func reserveTokens(appID: String, count: Int) async throws {
        let limit = limits.testUserTokensPerApp
        guard limit > 0, count > 0 else { return }
        let window = limiter.window(seconds: limits.testUserWindowSeconds)
        let total = try await services.storage.rateLimits.increment(
            key: "testusers:tokens:\(appID)", windowStart: window.start, amount: count, expiresAt: window.end)
        if total > limit {
            services.metrics.rateLimited("test_users")
            throw GraphFailure(.appRateLimit)
        }
    }

    /// Hashes a test user's generated password at ``passwordCost``, off the event loops, and never through
    /// ``GatehouseServices/passwords`` (the login hasher).
    func hashGeneratedPassword(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: Self.passwordCost) }
    }
}
