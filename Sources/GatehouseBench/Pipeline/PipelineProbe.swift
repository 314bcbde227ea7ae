import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import CoreMetrics

/// CPU time per request of each piece of the request pipeline on `/bench/hello`, and of the Graph hot path
/// (`/me`, `debug_token`), measured in-process.
///
/// `scripts/bench` measures whole requests; this splits the difference between Gatehouse's `/bench/hello` and
/// the bare reference app into its parts: the per-request work each middleware used to do and what replaced it,
/// each middleware alone around the hello handler (minus calling the handler directly), and whole responders
/// (the bare router, Gatehouse's router, and that router behind the ``StartupGate``). Each runs `iterations`
/// times in a row; the figure is the process's CPU time per call. HTTP parsing and the socket are left out:
/// they are the same for every route.
package struct PipelineProbe: Sendable {
    /// One measured piece: its name and CPU nanoseconds per request.
    package struct Row: Sendable, Codable {
        package var name: String
        package var nanosecondsPerRequest: Double
    }

    package let iterations: Int
    package let dataDirectory: String

    package init(iterations: Int, dataDirectory: String) {
        self.iterations = iterations
        self.dataDirectory = dataDirectory
    }

    package func run() async throws -> [Row] {
        var logger = Logger(label: "gatehouse.bench.pipeline")
        logger.logLevel = .error
        let configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 8080, dataDirectory: dataDirectory, benchRoutes: true, logLevel: "error")
        let services = try await GatehouseServerRunner.services(configuration: configuration, logger: logger)
        do {
            // The caches are on only while the storage's feed runs, as in the server's service group.
            let rows = try await services.storage.withInvalidationFeed {
                try await measureAll(services: services, logger: logger)
            }
            try await services.storage.shutdown()
            return rows
        } catch {
            try? await services.storage.shutdown()
            throw error
        }
    }

    private func measureAll(services: GatehouseServices, logger: Logger) async throws -> [Row] {
        let configuration = services.configuration
        let pages = try await PageRenderer.load(devMode: true)
        // The thread-safe test channel: with the loops as the executor this code resumes on either loop.
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 40000)).get()
        let source = ApplicationRequestContextSource(channel: channel, logger: logger)
        var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/bench/hello")
        head.headerFields[.userAgent] = "bench"
        let request = Request(head: head, body: .init(buffer: ByteBuffer()))
        let metrics = services.metrics
        let hello: @Sendable (Request, GatehouseRequestContext) async throws -> Response = { _, _ in
            BenchReference.hello()
        }

        var rows: [Row] = []
        func row(_ name: String, _ body: () async throws -> Void) async throws {
            rows.append(Row(name: name, nanosecondsPerRequest: try await measure(body)))
        }
        let context = GatehouseRequestContext(source: source)
        let path = request.uri.path, authority = request.head.authority
        // The per-request work each middleware did before it was made cheap; the functions are still the
        // ones the slow paths call.
        try await row("request context init") { _ = GatehouseRequestContext(source: source) }
        try await row("host guard, before: DevelopmentExposure.acceptsHost per request") {
            _ = DevelopmentExposure.acceptsHost(authority, configuration: configuration)
        }
        let accepted = AcceptedHosts()
        accepted.insert(authority ?? "")
        try await row("host guard, after: remembered Host lookup") { _ = accepted.contains(authority ?? "") }
        let trusted: [IPRange] = []
        try await row("forwarded headers, before: ForwardedClient.resolve (none trusted, plain HTTP)") {
            _ = ForwardedClient.resolve(
                peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[.xForwardedFor],
                forwardedProto: request.headers[.xForwardedProto], servesTLS: false, trusted: trusted)
        }
        try await row("metrics, before: RouteLabel.classify + factory lookups + record") {
            metrics.request(route: RouteLabel.classify(path), method: "GET", status: 200, duration: .microseconds(50))
        }
        let handles = RouteMetricHandles(metrics: metrics)
        try await row("metrics, after: label and handles resolved once + record") {
            let label = handles.label(path: path, endpoint: "/bench/hello")
            let (counter, timer) = handles.handles(label: label, method: .get, status: 200)
            counter.increment()
            timer.recordNanoseconds(50_000)
        }
        try await row("admin gate, before: AdminGate.normalized per request (every mode)") {
            _ = AdminGate.normalized(path)
        }
        try await row("admin gate, after: AdminGate.isNormal (production only)") { _ = AdminGate.isNormal(path) }

        // Each middleware as it is now, alone around the hello handler, minus calling the handler directly.
        let direct = try await measure { _ = try await hello(request, context) }
        rows.append(Row(name: "handler called directly", nanosecondsPerRequest: direct))
        let middlewares: [(String, any RouterMiddleware<GatehouseRequestContext>)] = [
            ("DevelopmentHostGuard", DevelopmentHostGuard(configuration: configuration)),
            (
                "ForwardedHeadersMiddleware (left out when no proxy is trusted and no TLS)",
                ForwardedHeadersMiddleware(configuration: configuration)
            ),
            (
                "RequestObservabilityMiddleware",
                RequestObservabilityMiddleware(metrics: metrics, logger: services.logger)
            ),
            (
                "RequestTracingMiddleware with a no-op tracer (left out without --otlp-endpoint)",
                RequestTracingMiddleware(
                    tracer: ServerTracing.noOp.tracer, configuration: configuration,
                    routes: RouteMetricHandles(metrics: metrics))
            ),
            ("PageErrorMiddleware", PageErrorMiddleware(pages: pages, logger: services.logger)),
            ("AdminGate (left out in development mode)", AdminGate(services: services)),
            ("AuditMiddleware", AuditMiddleware(services: services)),
            ("SessionActivityMiddleware (a request without cookies)", SessionActivityMiddleware(services: services)),
        ]
        for (name, middleware) in middlewares {
            let cost = try await measure { _ = try await middleware.handle(request, context: context, next: hello) }
            rows.append(Row(name: "middleware alone: " + name, nanosecondsPerRequest: cost - direct))
        }
        // Whole responders, context creation included.
        let reference = BenchReference.router().buildResponder()
        try await row("bare Hummingbird router (the reference)") {
            _ = try await reference.respond(to: request, context: BasicRequestContext(source: source))
        }
        let router = GatehouseApp.router(services: services, pages: pages).buildResponder()
        try await row("Gatehouse router with its middleware") {
            _ = try await router.respond(to: request, context: GatehouseRequestContext(source: source))
        }
        let gate = StartupGate()
        gate.open(with: router)
        try await row("Gatehouse router behind the StartupGate") {
            _ = try await gate.respond(to: request, context: GatehouseRequestContext(source: source))
        }
        try await graphRows(services: services, responder: gate, source: source, row: row)
        return rows
    }

    /// This thread's CPU nanoseconds per call of `body`, after a warm-up of a tenth as many calls.
    private func measure(_ body: () async throws -> Void) async throws -> Double {
        for _ in 0..<max(iterations / 10, 1) { try await body() }
        // The process's CPU time: the loop runs on one executor thread, and the process is otherwise idle.
        let start = ProcessCPUClock.nanoseconds()
        for _ in 0..<iterations { try await body() }
        return Double(ProcessCPUClock.nanoseconds() - start) / Double(iterations)
    }
}
