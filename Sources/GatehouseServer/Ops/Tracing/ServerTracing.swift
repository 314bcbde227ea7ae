import GatehouseCore
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// A server's traces (issue 42): the tracer its spans are made with, and the service that exports them.
///
/// Injected, never looked up: ``ServerStartup/Options/tracing`` carries it to ``GatehouseServices/tracer``, the
/// request middleware (``RequestTracingMiddleware``) and the outbox workers. A server without it (the default)
/// installs no tracing middleware, so a request pays nothing for traces.
package struct ServerTracing: Sendable {
    package let tracer: any Tracer
    /// Exports finished spans in batches and flushes them on shutdown; nil for a tracer that keeps its spans
    /// itself (a test's in-memory tracer). The server's group runs it first, so it stops last.
    package let exporter: (any Service)?

    package init(tracer: any Tracer, exporter: (any Service)? = nil) {
        self.tracer = tracer
        self.exporter = exporter
    }

    /// A tracer that records nothing: what the request middleware costs by itself (`gatehouse bench pipeline`).
    package static let noOp = ServerTracing(tracer: NoOpTracer())

    /// swift-otel's OTLP/HTTP (protobuf) exporter behind a batch span processor, to
    /// ``TracingConfiguration/tracesURL``, with `service.name` ``TracingConfiguration/serviceName``.
    ///
    /// It also bootstraps swift-distributed-tracing's process-wide `InstrumentationSystem` (swift-otel's one way
    /// to take its settings from a given environment), so only `gatehouse serve` calls it, once per process;
    /// in-process servers (tests, the emulator) pass their own ``ServerTracing`` or none.
    /// - Parameter environment: the process environment. The other `OTEL_*` variables (headers, compression,
    ///   timeout, sampler, batch sizes, resource attributes) reach swift-otel as they are; the endpoint and
    ///   service name were already settled by the configuration's precedence, and logs and metrics stay off.
    package static func bootstrapOTLP(
        _ configuration: TracingConfiguration, environment: [String: String], logger: Logger
    ) throws -> ServerTracing? {
        guard let url = configuration.tracesURL else { return nil }
        var otel = OTel.Configuration.default
        otel.serviceName = configuration.serviceName
        otel.diagnosticLogger = .custom(logger)
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.enabled = true
        otel.traces.exporter = .otlp
        otel.traces.otlpExporter.protocol = .httpProtobuf
        otel.traces.otlpExporter.endpoint = url
        let exporter = try OTel.bootstrap(configuration: otel, environment: passedOn(environment))
        logger.info("traces go to \(SecretMask.url(url)) over OTLP/HTTP")
        return ServerTracing(tracer: InstrumentationSystem.tracer, exporter: exporter)
    }

    /// The variables whose meaning the configuration has already decided, and which swift-otel would otherwise
    /// read again over it (a flag must beat the environment; this build exports traces over OTLP/HTTP only).
    static let settledVariables: Set<String> = [
        "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_TRACES_EXPORTER", "OTEL_LOGS_EXPORTER",
        "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    ]

    /// The environment swift-otel is given: the process's without ``settledVariables``.
    static func passedOn(_ environment: [String: String]) -> [String: String] {
        environment.filter { !settledVariables.contains($0.key) }
    }
}
