import Hummingbird
import Logging

/// Times every request into `gatehouse_http_*` metrics and writes one structured log line for it.
///
/// The log line carries method, route label (``RouteLabel``), status, duration and client IP — never the
/// query string, headers, cookies or body, which is where tokens, codes, secrets and passwords travel.
struct RequestObservabilityMiddleware: RouterMiddleware {
    typealias Context = GatehouseRequestContext
    let metrics: GatehouseMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let route = RouteLabel.classify(request.uri.path)
        let method = request.method.rawValue
        do {
            let response = try await next(request, context)
            record(route: route, method: method, status: response.status.code, start: start, ip: context.client.ip)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(route: route, method: method, status: status, start: start, ip: context.client.ip)
            throw error
        }
    }

    private func record(route: String, method: String, status: Int, start: ContinuousClock.Instant, ip: String?) {
        let elapsed = ContinuousClock.now - start
        metrics.request(route: route, method: method, status: status, duration: elapsed)
        // Debug, not info: at benchmark rates one line per request would dominate the cost.
        logger.debug("request", metadata: [
            "method": .string(method), "route": .string(route), "status": .stringConvertible(status),
            "duration_ms": .string(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)),
            "client": .string(ip ?? "-"),
        ])
    }
}
