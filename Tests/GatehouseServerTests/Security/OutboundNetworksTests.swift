import Foundation
import GatehouseCore
import GatehouseServer
import Testing

/// Issue 42: `outbound.allowed_networks` and `outbound.ca_file`, declared once and used by every outbound request.
/// Production mode lets a callback reach an allowed internal network over https, trusting the private CA given,
/// and still refuses plain http there and every internal address outside the allowed ranges.
@Suite struct OutboundNetworksTests {
    static func production(allowing networks: [String], caFile: String?) async throws -> TestServer {
        try await TestServer.make(
            mode: .production,
            configure: {
                $0.outbound.allowedNetworks = networks
                $0.outbound.caFile = caFile
            })
    }

    @Test func anAllowedNetworkWithItsCAIsReachedOverHTTPSInProduction() async throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let server = try await Self.production(allowing: ["127.0.0.0/8"], caFile: cert.certificatePath)
        try await server.run { _ in
            try await CallbackSSRFTests.withServer(tls: cert) { port, hits in
                let record = try await CallbackSSRFTests.deliver(
                    server, to: "https://localhost:\(port)/deauthorize", transport: server.services.callbackTransport)
                #expect(record?.deliveredAt != nil)
                #expect(record?.lastError == nil)
                // Event sinks trust the same CA file.
                let status = try await server.services.eventSinkTransport.post(
                    url: "https://localhost:\(port)/sink", body: "{}", headers: [], timeout: .seconds(10))
                #expect(status == 200)
                #expect(hits.value == 2)
            }
        }
    }

    @Test func anAllowedNetworkStillNeedsHTTPS() async throws {
        let server = try await Self.production(allowing: ["127.0.0.0/8"], caFile: nil)
        try await server.run { _ in
            try await CallbackSSRFTests.withServer { port, hits in
                let record = try await CallbackSSRFTests.deliver(
                    server, to: "http://127.0.0.1:\(port)/deauthorize", transport: server.services.callbackTransport)
                #expect(hits.value == 0)
                #expect(record?.lastError == "callback URLs must be https:// in production mode")
            }
        }
    }

    @Test func anInternalAddressOutsideTheAllowedNetworksIsRefusedWithTheSettingsName() async throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let server = try await Self.production(allowing: ["10.20.0.0/16"], caFile: cert.certificatePath)
        try await server.run { _ in
            try await CallbackSSRFTests.withServer(tls: cert) { port, hits in
                let record = try await CallbackSSRFTests.deliver(
                    server, to: "https://localhost:\(port)/deauthorize", transport: server.services.callbackTransport)
                #expect(hits.value == 0)
                #expect(
                    record?.lastError
                        == "the callback host resolves to an internal address, which production mode refuses unless "
                        + "outbound.allowed_networks includes it")
            }
        }
    }

    @Test func aPrivateCAsReceiverWithoutTheCAFileIsRefusedWithTheReason() async throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let server = try await Self.production(allowing: ["127.0.0.1", "::1"], caFile: nil)
        try await server.run { _ in
            try await CallbackSSRFTests.withServer(tls: cert) { port, hits in
                let record = try await CallbackSSRFTests.deliver(
                    server, to: "https://localhost:\(port)/deauthorize", transport: server.services.callbackTransport)
                #expect(hits.value == 0)
                #expect(
                    record?.lastError
                        == "the callback's TLS certificate is not trusted (a receiver whose certificate a private CA "
                        + "issued needs that CA in outbound.ca_file)")
            }
        }
    }

    @Test func theSettingsAreCheckedWhenTheConfigurationLoads() throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let loaded = try ConfigurationLoader(environment: [
            "GATEHOUSE_OUTBOUND_ALLOWED_NETWORKS": "10.20.0.0/16, fd12::/48",
            "GATEHOUSE_OUTBOUND_CA_FILE": cert.certificatePath,
        ]).load()
        #expect(loaded.configuration.outbound.allowedNetworks == ["10.20.0.0/16", "fd12::/48"])
        #expect(loaded.configuration.outbound.caFile == cert.certificatePath)
        #expect(
            loaded.printed().contains(
                "outbound:\n  allowed_networks: 10.20.0.0/16,fd12::/48  # GATEHOUSE_OUTBOUND_ALLOWED_NETWORKS\n"))

        #expect(
            throws: ConfigurationError(
                "GATEHOUSE_OUTBOUND_ALLOWED_NETWORKS: 10.20.0.0/33 is not an IP address or CIDR range")
        ) {
            try ConfigurationLoader(environment: ["GATEHOUSE_OUTBOUND_ALLOWED_NETWORKS": "10.20.0.0/33"]).load()
        }
        #expect(throws: ConfigurationError("GATEHOUSE_OUTBOUND_CA_FILE: cannot read /nonexistent/ca.pem")) {
            try ConfigurationLoader(environment: ["GATEHOUSE_OUTBOUND_CA_FILE": "/nonexistent/ca.pem"]).load()
        }
        #expect(
            throws: ConfigurationError(
                "GATEHOUSE_OUTBOUND_CA_FILE: \(cert.keyPath) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        ) {
            try ConfigurationLoader(environment: ["GATEHOUSE_OUTBOUND_CA_FILE": cert.keyPath]).load()
        }
    }
}
