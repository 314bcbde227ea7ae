import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOCore

/// `/metrics` (Prometheus text) and, when `bench_routes` is on, the benchmark's baseline routes.
///
/// In production mode `/metrics` answers only a client on loopback (a scraper beside the server) or one sending
/// `Authorization: Bearer <metrics_token>`; anyone else gets 401. Counters reveal traffic, login failures and
/// route use, which is reconnaissance for an attacker.
struct OpsRoutes: Sendable {
    let services: GatehouseServices

    func register(on router: Router<GatehouseRequestContext>) {
        let metrics = services.metrics
        if services.configuration.metricsEnabled, metrics.registry != nil {
            let configuration = services.configuration
            let services = self.services
            router.get("/metrics") { request, context in
                guard Self.mayReadMetrics(request, client: context.client, configuration: configuration) else {
                    return Response(
                        status: .unauthorized,
                        headers: [
                            .contentType: "text/plain; charset=utf-8", .cacheControl: "no-store",
                            .wwwAuthenticate: "Bearer realm=\"metrics\"",
                        ],
                        body: .init(
                            byteBuffer: ByteBuffer(
                                string: "metrics need a loopback client or the metrics bearer token\n")))
                }
                metrics.cachesEnabled(services.storage.callerCache?.isEnabled ?? false)
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
            }
        }
        guard services.configuration.benchRoutes else { return }
        registerBench(on: router)
    }

    /// Development mode: anyone. Production mode: a loopback client, or the configured bearer token.
    static func mayReadMetrics(_ request: Request, client: ForwardedClient, configuration: GatehouseConfiguration)
        -> Bool
    {
        guard configuration.isProduction else { return true }
        if let ip = client.ip, DevelopmentExposure.isLoopback(ip) { return true }
        guard let token = configuration.metricsToken, !token.isEmpty,
            let header = request.headers[.authorization], header.hasPrefix("Bearer ")
        else { return false }
        return constantTimeEquals(String(header.dropFirst(7)), token)
    }

    private func registerBench(on router: Router<GatehouseRequestContext>) {
        // The baseline: the same binary, middleware and router, no storage and no work.
        router.get("/bench/hello") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "hello"))
            )
        }
        // RS256 signing alone: an id_token for a fixed person, without the code exchange around it.
        let services = self.services
        router.get("/bench/id_token") { _, _ in
            let now = services.clock.now()
            var claims = IDTokenClaims(
                iss: services.configuration.baseURL, aud: "bench", sub: "1", iat: Int(now.timeIntervalSince1970),
                exp: Int(now.timeIntervalSince1970) + 3600, jti: services.random.uuidString().lowercased(), nonce: nil)
            claims[.name] = "Bench Person"
            let token = try await services.keyRing.sign(claims)
            services.metrics.tokenIssued("id_token")
            return Response(
                status: .ok, headers: [.contentType: "application/jwt"],
                body: .init(byteBuffer: ByteBuffer(string: token)))
        }
    }
}
