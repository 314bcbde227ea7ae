import GatehouseCore
import CoreMetrics
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import Foundation

/// Times every request into `gatehouse_http_*` metrics and writes one structured log line for it.
///
/// The log line carries method, route label (``RouteLabel``), status, duration and client IP — never the
/// query string, headers, cookies or body, which is where tokens, codes, secrets and passwords travel.
///
/// Labels and metric handles are resolved once per route, not per request (``RouteMetricHandles``): building
/// a label and asking the metrics factory for a counter and a timer cost more than the hello-world route itself.
package struct RequestObservabilityMiddleware: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let metrics: GatehouseMetrics
    let logger: Logger
    let handles: RouteMetricHandles

    package init(metrics: GatehouseMetrics, logger: Logger) {
        self.metrics = metrics
        self.logger = logger
        self.handles = RouteMetricHandles(metrics: metrics)
    }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let route = handles.label(path: request.uri.path, endpoint: context.coreContext.endpointPath.value)
        let method = context.method(of: request)
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

    private func record(
        route: String, method: HTTPRequest.Method, status: Int, start: ContinuousClock.Instant, ip: String?
    ) {
        let elapsed = ContinuousClock.now - start
        let (counter, timer) = handles.handles(label: route, method: method, status: status)
        counter.increment()
        timer.recordNanoseconds(
            elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        // Debug, not info: at benchmark rates one line per request would dominate the cost.
        logger.debug(
            "request",
            metadata: [
                "method": .string(method.rawValue), "route": .string(route), "status": .stringConvertible(status),
                "duration_ms": .string(
                    String(
                        format: "%.2f",
                        Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)),
                "client": .string(ip ?? "-"),
            ])
    }
}

/// The route label of each request and the metric handles of each (route, method, status), made once.
///
/// A route without parameters or wildcards matched the request's path segment for segment, so its label is
/// ``RouteLabel/classify(_:)`` of the route's own path and is looked up by that; other routes (ids, the Graph
/// catch-all) classify the path as before and share handles by label. Both tables are bounded: by the number
/// of routes, and by ``maximumHandles`` (past it, handles are made per request as the factory would anyway).
package final class RouteMetricHandles: Sendable {
    private struct Key: Hashable {
        let label: String
        let method: HTTPRequest.Method
        let status: Int
    }

    static let maximumHandles = 4096
    private let metrics: GatehouseMetrics
    private let labels = NIOLockedValueBox<[String: String]>([:])
    private let table = NIOLockedValueBox<[Key: (CoreMetrics.Counter, CoreMetrics.Timer)]>([:])

    package init(metrics: GatehouseMetrics) {
        self.metrics = metrics
    }

    /// The label for `path`, which the router matched to `endpoint` (nil when no route matched).
    package func label(path: String, endpoint: String?) -> String {
        guard let endpoint, Self.isLiteral(endpoint) else { return RouteLabel.classify(path) }
        if let known = labels.withLockedValue({ $0[endpoint] }) { return known }
        let label = RouteLabel.classify(endpoint)
        labels.withLockedValue { $0[endpoint] = label }
        return label
    }

    /// The request counter and duration timer for one outcome.
    package func handles(label: String, method: HTTPRequest.Method, status: Int) -> (
        CoreMetrics.Counter, CoreMetrics.Timer
    ) {
        let key = Key(label: label, method: method, status: status)
        if let known = table.withLockedValue({ $0[key] }) { return known }
        let made = metrics.requestHandles(route: label, method: method.rawValue, status: status)
        table.withLockedValue { table in
            if table.count < Self.maximumHandles { table[key] = made }
        }
        return made
    }

    /// A route path without `{parameter}`, `*` or `**`, `:parameter` segments: it matches only itself.
    static func isLiteral(_ endpoint: String) -> Bool {
        !endpoint.utf8.contains { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: ":") }
    }
}
