import Foundation
import GatehouseCore
import Testing

@testable import GatehouseServer

/// `otlp_endpoint` and `otlp_service_name` (issue 42): one setting each, read from the flag, `GATEHOUSE_*`, the
/// standard `OTEL_*` variables and the file, in that order, and what swift-otel is then given.
@Suite struct TracingConfigurationTests {
    @Test func tracesAreOffUnlessAnEndpointIsConfigured() throws {
        let loaded = try ConfigurationLoader().load()
        #expect(loaded.configuration.tracing == TracingConfiguration())
        #expect(!loaded.configuration.tracing.isEnabled)
        #expect(loaded.configuration.tracing.tracesURL == nil)
        #expect(loaded.configuration.tracing.serviceName == "gatehouse")
        #expect(loaded.printed().contains("otlp_endpoint: null  # default\n"))
        #expect(loaded.printed().contains("otlp_service_name: gatehouse  # default\n"))
    }

    @Test func theFlagBeatsGatehouseVariableBeatsTheStandardOnes() throws {
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://base.example:4318",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces.example:4318/v1/traces",
            "GATEHOUSE_OTLP_ENDPOINT": "http://gatehouse.example:4318",
        ]
        let flag = try ConfigurationLoader(
            flags: ["otlp_endpoint": "http://flag.example:4318"], environment: environment
        )
        .load()
        #expect(flag.configuration.tracing.tracesURL == "http://flag.example:4318/v1/traces")
        #expect(flag.sources["otlp_endpoint"] == .flag)

        let ours = try ConfigurationLoader(environment: environment).load()
        #expect(ours.configuration.tracing.tracesURL == "http://gatehouse.example:4318/v1/traces")

        var standard = environment
        standard["GATEHOUSE_OTLP_ENDPOINT"] = nil
        // The signal's own variable is used as it is, before the shared one.
        let traces = try ConfigurationLoader(environment: standard).load()
        #expect(traces.configuration.tracing.otlpEndpoint == "http://traces.example:4318/v1/traces")
        #expect(traces.configuration.tracing.tracesURL == "http://traces.example:4318/v1/traces")
        #expect(
            traces.printed().contains(
                "otlp_endpoint: http://traces.example:4318/v1/traces  # GATEHOUSE_OTLP_ENDPOINT or "
                    + "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT\n"))

        standard["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = nil
        let base = try ConfigurationLoader(environment: standard).load()
        #expect(base.configuration.tracing.tracesURL == "http://base.example:4318/v1/traces")
        // A base with a path of its own gets `v1/traces` after it, as OpenTelemetry's exporters do.
        let prefixed = try ConfigurationLoader(
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example/otlp/"]
        ).load()
        #expect(prefixed.configuration.tracing.tracesURL == "https://collector.example/otlp/v1/traces")
    }

    @Test func anEndpointWithAPathIsUsedAsItIs() {
        #expect(
            TracingConfiguration(otlpEndpoint: "http://127.0.0.1:4318").tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(
            TracingConfiguration(otlpEndpoint: "http://127.0.0.1:4318/").tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(
            TracingConfiguration(otlpEndpoint: "http://127.0.0.1:4318/v1/traces").tracesURL
                == "http://127.0.0.1:4318/v1/traces")
        #expect(
            TracingConfiguration(otlpEndpoint: "https://collector.example/ingest").tracesURL
                == "https://collector.example/ingest")
        #expect(TracingConfiguration.endpoint(fromBase: "http://h:4318") == "http://h:4318")
        #expect(TracingConfiguration.endpoint(fromBase: "http://h:4318/p") == "http://h:4318/p/v1/traces")
    }

    @Test func aBadEndpointIsRefusedNamingWhereItCameFrom() throws {
        #expect(
            throws: ConfigurationError(
                "--otlp-endpoint: must be an http:// or https:// URL of an OTLP/HTTP collector, not 127.0.0.1:4318")
        ) {
            try ConfigurationLoader(flags: ["otlp_endpoint": "127.0.0.1:4318"]).load()
        }
        #expect(
            throws: ConfigurationError(
                "GATEHOUSE_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT: must be an "
                    + "http:// or https:// URL of an OTLP/HTTP collector, not grpc://collector:4317")
        ) {
            try ConfigurationLoader(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "grpc://collector:4317"]).load()
        }
        #expect(
            throws: ConfigurationError(
                "--otlp-endpoint: must not carry a query or fragment (OTLP headers go in OTEL_EXPORTER_OTLP_HEADERS)")
        ) {
            try ConfigurationLoader(flags: ["otlp_endpoint": "http://h:4318/v1/traces?api_key=secret"]).load()
        }
    }

    @Test func theServiceNameComesFromOTELServiceNameUnlessGatehouseNamesIt() throws {
        let standard = try ConfigurationLoader(environment: ["OTEL_SERVICE_NAME": "login-eu"]).load()
        #expect(standard.configuration.tracing.serviceName == "login-eu")
        let ours = try ConfigurationLoader(
            environment: ["OTEL_SERVICE_NAME": "login-eu", "GATEHOUSE_OTLP_SERVICE_NAME": "login-us"]
        ).load()
        #expect(ours.configuration.tracing.serviceName == "login-us")
    }

    @Test func swiftOTelIsNotGivenWhatTheConfigurationSettled() {
        let passed = ServerTracing.passedOn([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://other:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://other",
            "OTEL_SERVICE_NAME": "other", "OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            "OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer x",
            "OTEL_TRACES_SAMPLER": "parentbased_always_on", "PATH": "/usr/bin",
        ])
        #expect(
            passed == [
                "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer x", "OTEL_TRACES_SAMPLER": "parentbased_always_on",
                "PATH": "/usr/bin",
            ])
    }
}
