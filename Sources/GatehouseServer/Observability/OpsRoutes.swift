import Foundation
import GatehouseProtocol
import Hummingbird
import NIOCore

/// `/metrics` (Prometheus text) and, when `bench_routes` is on, the benchmark's baseline routes.
struct OpsRoutes: Sendable {
    let services: GatehouseServices

    func register(on router: Router<GatehouseRequestContext>) {
        let metrics = services.metrics
        if services.configuration.metricsEnabled, metrics.registry != nil {
            router.get("/metrics") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                         body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
            }
        }
        guard services.configuration.benchRoutes else { return }
        // The baseline: the same binary, middleware and router, no storage and no work.
        router.get("/bench/hello") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "hello")))
        }
        // RS256 signing alone: an id_token for a fixed person, without the code exchange around it.
        let services = self.services
        router.get("/bench/id_token") { _, _ in
            let now = services.clock.now()
            var claims = IDTokenClaims(
                iss: services.configuration.baseURL, aud: "bench", sub: "1", iat: Int(now.timeIntervalSince1970),
                exp: Int(now.timeIntervalSince1970) + 3600, jti: UUID().uuidString.lowercased(), nonce: nil)
            claims.name = "Bench Person"
            let token = try await services.keyRing.sign(claims)
            services.metrics.tokenIssued("id_token")
            return Response(status: .ok, headers: [.contentType: "application/jwt"], body: .init(byteBuffer: ByteBuffer(string: token)))
        }
    }
}
