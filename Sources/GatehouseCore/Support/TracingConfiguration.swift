import Foundation

/// Traces (issue 42): where the server sends its spans over OTLP/HTTP, and the service name they carry.
///
/// Off unless an endpoint is configured (`otlp_endpoint`, `--otlp-endpoint`, or the standard
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`); with it off no tracer exists and no
/// request pays for one.
package struct TracingConfiguration: Sendable, Equatable {
    /// The collector's OTLP/HTTP address. A URL without a path (or with `/`) is the collector's base, and spans
    /// go to its `/v1/traces`; a URL with a path is where spans go, as it is. nil: traces are off.
    package var otlpEndpoint: String?
    /// `service.name` of every span (`OTEL_SERVICE_NAME`).
    package var serviceName = "gatehouse"

    package init(otlpEndpoint: String? = nil, serviceName: String = "gatehouse") {
        self.otlpEndpoint = otlpEndpoint
        self.serviceName = serviceName
    }

    /// Whether the server makes and exports spans.
    package var isEnabled: Bool { otlpEndpoint != nil }

    /// Where spans are POSTed (OTLP/HTTP protobuf), or nil when traces are off.
    package var tracesURL: String? {
        guard let otlpEndpoint, var parts = URLComponents(string: otlpEndpoint) else { return otlpEndpoint }
        guard parts.path.isEmpty || parts.path == "/" else { return otlpEndpoint }
        parts.path = "/v1/traces"
        return parts.string ?? otlpEndpoint
    }

    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is a base URL to which OpenTelemetry's exporters add `v1/traces` (after a
    /// path of its own, if it has one): the value ``otlpEndpoint`` takes from it.
    package static func endpoint(fromBase base: String) -> String {
        guard let parts = URLComponents(string: base), !parts.path.isEmpty, parts.path != "/" else { return base }
        return base.hasSuffix("/") ? base + "v1/traces" : base + "/v1/traces"
    }

    /// An endpoint is an `http://` or `https://` URL with a host and no query or fragment.
    /// - Throws: ``ConfigurationError`` saying what is wrong.
    package static func validate(endpoint value: String) throws {
        guard let parts = URLComponents(string: value), let scheme = parts.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = parts.host, !host.isEmpty
        else {
            throw ConfigurationError("must be an http:// or https:// URL of an OTLP/HTTP collector, not \(value)")
        }
        guard parts.query == nil, parts.fragment == nil else {
            throw ConfigurationError(
                "must not carry a query or fragment (OTLP headers go in OTEL_EXPORTER_OTLP_HEADERS)")
        }
    }
}
