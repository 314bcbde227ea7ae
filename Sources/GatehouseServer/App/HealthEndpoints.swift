import GatehouseCore
import Hummingbird
import Logging
import NIOCore

/// `/healthz` and `/readyz`, for load balancers and orchestrators.
///
/// - `/healthz` answers 200 `ok` whenever the process can answer at all (liveness): it never touches the
///   database, so a database outage does not get healthy nodes restarted.
/// - `/readyz` answers 200 `ready` only when the database answers a trivial query, and 503 `not ready: …`
///   otherwise (readiness): a proxy stops sending traffic to a node that cannot serve it.
///
/// Both are plain text and never cached.
struct HealthEndpoints: Sendable {
    let storage: Storage
    let logger: Logger

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/healthz") { _, _ in Self.text(.ok, "ok") }
        router.get("/readyz") { _, _ in await ready() }
    }

    func ready() async -> Response {
        do {
            try await storage.ping()
            return Self.text(.ok, "ready")
        } catch {
            logger.warning("readiness check failed: database unavailable")
            return Self.text(.serviceUnavailable, "not ready: the database is unavailable")
        }
    }

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body + "\n")))
    }
}
