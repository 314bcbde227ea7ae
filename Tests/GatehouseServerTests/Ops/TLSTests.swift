import AsyncHTTPClient
import Crypto
import Foundation
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOSSL
import Testing
import X509
import NIOHTTP1
import SwiftASN1

/// A self-signed certificate for `localhost` / 127.0.0.1, made fresh for each test.
struct SelfSignedCertificate {
    let certificatePEM: String
    let keyPEM: String
    let directory: URL

    var certificatePath: String { directory.appendingPathComponent("cert.pem").path }
    var keyPath: String { directory.appendingPathComponent("key.pem").path }

    static func make() throws -> SelfSignedCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let made = SelfSignedCertificate(
            certificatePEM: try certificate.serializeAsPEM().pemString, keyPEM: key.pemRepresentation,
            directory: directory)
        try made.certificatePEM.write(toFile: made.certificatePath, atomically: true, encoding: .utf8)
        try made.keyPEM.write(toFile: made.keyPath, atomically: true, encoding: .utf8)
        return made
    }
}

@Suite struct TLSTests {
    @Test func servesHTTPSWithTheConfiguredCertificateAndSendsHSTS() async throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let server = try await TestServer.make(configure: {
            $0.tlsCertificatePath = cert.certificatePath
            $0.tlsKeyPath = cert.keyPath
            $0.publicURL = nil
        })
        #expect(server.services.configuration.baseURL.hasPrefix("https://"))
        try await server.run(.live) { client in
            let port = try #require(client.port)
            // A client that trusts only our certificate, with full verification (hostname included).
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(cert.certificatePEM.utf8), format: .pem)]
            )
            tls.certificateVerification = .fullVerification
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            do {
                let response = try await http.execute(
                    HTTPClientRequest(url: "https://localhost:\(port)/healthz"), timeout: .seconds(120))
                #expect(response.status == .ok)
                #expect(response.headers["Strict-Transport-Security"].first == "max-age=31536000; includeSubDomains")
                let page = try await http.execute(
                    HTTPClientRequest(
                        url:
                            "https://localhost:\(port)/dialog/oauth?client_id=\(server.app.id)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback"
                    ),
                    timeout: .seconds(120))
                #expect(page.status == .ok)
                // Served over TLS, so cookies are Secure.
                #expect(page.headers["Set-Cookie"].first?.contains("Secure") == true)
                // Plain HTTP to the TLS port fails rather than being answered in clear.
                let plain = try? await http.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5))
                #expect(plain?.status != .ok)
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test func unreadableCertificateOrKeyIsAClearError() throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        #expect(
            throws: ConfigurationError("tls_cert /nonexistent/cert.pem could not be read as a PEM certificate chain")
        ) {
            _ = try GatehouseApp.serverBuilder(
                GatehouseConfiguration(tlsCertificatePath: "/nonexistent/cert.pem", tlsKeyPath: cert.keyPath))
        }
        #expect(throws: ConfigurationError("tls_key \(cert.certificatePath) could not be read as a PEM private key")) {
            _ = try GatehouseApp.serverBuilder(
                GatehouseConfiguration(tlsCertificatePath: cert.certificatePath, tlsKeyPath: cert.certificatePath))
        }
    }
}
