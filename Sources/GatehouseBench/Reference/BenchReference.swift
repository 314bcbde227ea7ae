import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Hummingbird
import Logging
import NIOCore

/// The benchmark's reference point: a bare Hummingbird application with one route and nothing else.
///
/// `scripts/bench` compares Gatehouse's `/bench/hello` with this app in the same run, so the ratio shows what
/// Gatehouse's middleware chain, router size and startup gate cost on top of Hummingbird itself. It has no
/// middleware, no storage and no request context of Gatehouse's, on purpose: anything added here would hide
/// part of that cost.
package enum BenchReference {
    /// The one response both apps give: 200, `Content-Type: text/plain`, body `hello`.
    static func hello() -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "hello")))
    }

    /// The router: `GET /bench/hello` only (anything else is Hummingbird's own 404).
    package static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/bench/hello") { _, _ in hello() }
        return router
    }

    /// The application listening on `host:port` (port 0 picks a free one; `onServerRunning` learns which).
    package static func application(
        host: String = "127.0.0.1", port: Int, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "Gatehouse"),
            onServerRunning: onServerRunning, logger: logger)
    }
}
