import GatehouseCore
import CoreMetrics
import Foundation
import Metrics
import Prometheus

/// The server's counters and timers, made from an injected `MetricsFactory`.
///
/// Nothing here touches swift-metrics' global `MetricsSystem`: each ``GatehouseServices`` gets its own
/// Prometheus registry (or a test factory), so tests running side by side never share counts. `/metrics`
/// renders ``registry`` when there is one.
package struct GatehouseMetrics: Sendable {
    let factory: any MetricsFactory
    /// The Prometheus registry behind ``factory``, when the factory is Prometheus'.
    package let registry: PrometheusCollectorRegistry?

    /// Prometheus metrics in a fresh registry (the server's default).
    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Latency buckets from 0.5 ms to 5 s: the interesting range for an auth server.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5),
        ]
        self.factory = factory
        self.registry = registry
    }

    /// Any other factory (e.g. a recording one in tests); `/metrics` then has nothing to render.
    package init(factory: any MetricsFactory) {
        self.factory = factory
        self.registry = nil
    }

    /// Outcome of a password login.
    package enum LoginOutcome: String, Sendable { case success, failure, limited }

    /// One HTTP request: `gatehouse_http_requests_total{route,method,status}` and
    /// `gatehouse_http_request_duration_seconds{route,method}`.
    package func request(route: String, method: String, status: Int, duration: Duration) {
        let (counter, timer) = requestHandles(route: route, method: method, status: status)
        counter.increment()
        timer.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// The two handles behind ``request(route:method:status:duration:)``, for callers that keep them
    /// (``RouteMetricHandles``): the factory's lookup is what costs, not the increment.
    func requestHandles(route: String, method: String, status: Int) -> (CoreMetrics.Counter, CoreMetrics.Timer) {
        (
            CoreMetrics.Counter(
                label: "gatehouse_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", "\(status)")], factory: factory),
            CoreMetrics.Timer(
                label: "gatehouse_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                factory: factory)
        )
    }

    /// `gatehouse_logins_total{result}` (dialog and console logins).
    func login(_ outcome: LoginOutcome, console: Bool = false) {
        Counter(
            label: "gatehouse_logins_total",
            dimensions: [("result", outcome.rawValue), ("page", console ? "console" : "dialog")], factory: factory
        )
        .increment()
    }

    /// `gatehouse_consents_total{result}`: granted or cancelled.
    func consent(granted: Bool) {
        Counter(
            label: "gatehouse_consents_total", dimensions: [("result", granted ? "granted" : "cancelled")],
            factory: factory
        ).increment()
    }

    /// `gatehouse_tokens_issued_total{kind}`: user, app, id_token, code.
    func tokenIssued(_ kind: String) {
        Counter(label: "gatehouse_tokens_issued_total", dimensions: [("kind", kind)], factory: factory).increment()
    }

    /// `gatehouse_graph_errors_total{code}`: Graph API error replies by Facebook error code.
    func graphError(code: Int) {
        Counter(label: "gatehouse_graph_errors_total", dimensions: [("code", "\(code)")], factory: factory).increment()
    }

    /// `gatehouse_rate_limited_total{limit}`: requests refused by a limit.
    func rateLimited(_ limit: String) {
        Counter(label: "gatehouse_rate_limited_total", dimensions: [("limit", limit)], factory: factory).increment()
    }

    /// `gatehouse_caches_enabled`: 1 while this node's caches are on (its invalidation feed is watching for
    /// other processes' and nodes' writes), 0 while every request reads the database. Set when `/metrics` is read.
    func cachesEnabled(_ enabled: Bool) {
        Gauge(label: "gatehouse_caches_enabled", factory: factory).record(enabled ? 1 : 0)
    }

    /// The Prometheus text exposition of every metric so far.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry?.emit(into: &buffer)
        return buffer
    }
}
