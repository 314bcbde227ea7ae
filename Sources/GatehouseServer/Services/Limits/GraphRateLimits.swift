import GatehouseCore
import Foundation
import GatehouseProtocol

/// Graph API budgets with Facebook's throttling errors:
/// - per app (`limits.app_calls_per_window`): `(#4) Application request limit reached`;
/// - per app and person (`limits.user_calls_per_window`): `(#17) User request limit reached`;
/// - `/oauth/access_token` per client IP (`limits.token_endpoint_calls_per_ip`): `(#613) Calls to this api
///   have exceeded the rate limit` — slows down anyone guessing codes.
///
/// All off (0) by default: each budget costs one counter write per call in the shared store.
struct GraphRateLimits: Sendable {
    let services: GatehouseServices

    private var limits: LimitsConfiguration { services.configuration.limits }
    private var limiter: RateLimiter { RateLimiter(store: services.storage.rateLimits, clock: services.clock) }

    func check(_ caller: Caller) async throws {
        let window = limits.apiWindowSeconds
        if limits.appCallsPerWindow > 0,
            try await !limiter.allow("api:app:\(caller.app.id)", limit: limits.appCallsPerWindow, windowSeconds: window)
        {
            services.metrics.rateLimited("app")
            throw GraphFailure(.appRateLimit)
        }
        if limits.userCallsPerWindow > 0, case .user(let user) = caller,
            try await !limiter.allow(
                "api:user:\(caller.app.id):\(user.user.id)", limit: limits.userCallsPerWindow, windowSeconds: window)
        {
            services.metrics.rateLimited("user")
            throw GraphFailure(.userRateLimit)
        }
    }

    /// `POST /device/login` per app and per client network: each call stores a code, so unlimited calls would fill
    /// the database and flood the user-code space (making codes guessable). Over budget: `(#613)`.
    func checkDeviceLogin(appID: String, ip: String?) async throws {
        let window = limits.deviceLoginWindowSeconds
        let networkAllowed = try await limiter.allow(
            "device:ip:\(ClientNetwork.key(ip))", limit: limits.deviceLoginsPerIP, windowSeconds: window)
        let appAllowed = try await limiter.allow(
            "device:app:\(appID)", limit: limits.deviceLoginsPerApp, windowSeconds: window)
        if !networkAllowed || !appAllowed {
            services.metrics.rateLimited("device_login")
            throw GraphFailure(.apiRateLimit)
        }
    }

    func checkTokenEndpoint(ip: String?) async throws {
        guard limits.tokenEndpointCallsPerIP > 0, let ip else { return }
        if try await !limiter.allow(
            "api:token:\(ip)", limit: limits.tokenEndpointCallsPerIP, windowSeconds: limits.apiWindowSeconds)
        {
            services.metrics.rateLimited("token_endpoint")
            throw GraphFailure(.apiRateLimit)
        }
    }
}
