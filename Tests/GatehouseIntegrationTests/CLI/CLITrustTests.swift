import ChildProcesses
import Crypto
import Foundation
import GatehouseTestSupport
import SwiftASN1
import Testing
import X509

/// Issue 41 item 7: the CLI reaches an HTTPS server whose certificate a private CA issued, or that signed its own,
/// with `--ca-cert FILE` or `SSL_CERT_FILE`, on every group of commands that takes `--server` (the management
/// commands, the emulator commands, the SDK-based client commands); without them it says the certificate is why.
@Suite(.serialized, .tags(.process)) struct CLITrustTests {
    /// Certificates written to a scratch folder: a private CA and the leaf it issued for localhost, and a
    /// self-signed certificate for localhost.
    struct Certificates {
        let scratch: ScratchDirectory
        var caPath: String { scratch.path + "/ca.pem" }
        var leafPath: String { scratch.path + "/leaf.pem" }
        var leafKeyPath: String { scratch.path + "/leaf-key.pem" }
        var selfSignedPath: String { scratch.path + "/self.pem" }
        var selfSignedKeyPath: String { scratch.path + "/self-key.pem" }

        static func make() throws -> Certificates {
            let scratch = try ScratchDirectory.create("trust")
            let made = Certificates(scratch: scratch)
            let now = Date()
            let hosts = SubjectAlternativeNames([
                .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            ])

            let caKey = P256.Signing.PrivateKey()
            let caName = try DistinguishedName { CommonName("Gatehouse Test CA") }
            let ca = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
                notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: caName, subject: caName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true))
                },
                issuerPrivateKey: .init(caKey))
            let leafKey = P256.Signing.PrivateKey()
            let leaf = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
                notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: caName,
                subject: try DistinguishedName { CommonName("localhost") }, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    hosts
                },
                issuerPrivateKey: .init(caKey))
            let selfKey = P256.Signing.PrivateKey()
            let selfName = try DistinguishedName { CommonName("localhost") }
            let selfSigned = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(selfKey.publicKey),
                notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: selfName, subject: selfName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    hosts
                },
                issuerPrivateKey: .init(selfKey))
            for (text, path) in [
                (try ca.serializeAsPEM().pemString, made.caPath),
                (try leaf.serializeAsPEM().pemString, made.leafPath), (leafKey.pemRepresentation, made.leafKeyPath),
                (try selfSigned.serializeAsPEM().pemString, made.selfSignedPath),
                (selfKey.pemRepresentation, made.selfSignedKeyPath),
            ] {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            return made
        }
    }

    static let untrusted =
        "gatehouse: the server's certificate is not trusted (it was not issued by a certificate authority this "
        + "machine trusts); pass --ca-cert FILE or set SSL_CERT_FILE\n"

    /// The three option groups' commands against `base`: a management command, an emulator command and a Graph
    /// call through the SDK (answered with the server's refusal of the app's client token, which needs no login).
    static func commands(_ base: String, server: ServedGatehouse, cacheDir: String) -> [[String]] {
        [
            ["apps", "list", "--json", "--server", base],
            ["clock", "show", "--json", "--server", base],
            ["graph", "me", "--server", base, "--data-dir", server.dataDirectory, "--cache-dir", cacheDir],
        ]
    }

    /// What each command answers when the connection works.
    static func expectAnswered(_ results: [CLIProcess.Output], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(results[0].status == 0, "\(results[0].stderr)", sourceLocation: sourceLocation)
        #expect((results[0].json as? [[String: Any]])?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(results[1].status == 0, "\(results[1].stderr)", sourceLocation: sourceLocation)
        #expect((results[1].json as? [String: Any])?["now_iso"] != nil, sourceLocation: sourceLocation)
        #expect(results[2].status == 4, "\(results[2].stderr)", sourceLocation: sourceLocation)
        #expect(
            results[2].stderr.hasPrefix("gatehouse: this call needs a logged-in person's access token"),
            "\(results[2].stderr)", sourceLocation: sourceLocation)
    }

    static func run(_ commands: [[String]], extra: [String] = [], environment: [String: String] = [:])
        async throws -> [CLIProcess.Output]
    {
        var results: [CLIProcess.Output] = []
        for command in commands { results.append(try await CLIProcess.run(command + extra, environment: environment)) }
        return results
    }

    @Test func aPrivateCAsServerIsReachedWithCACertOrSSLCertFileAndNamedWithout() async throws {
        let certificates = try Certificates.make()
        defer { certificates.scratch.remove() }
        let server = try await ServedGatehouse.start([
            "--tls-cert", certificates.leafPath, "--tls-key", certificates.leafKeyPath,
        ])
        defer { server.stop() }
        let base = "https://localhost:\(server.port)"
        let commands = Self.commands(base, server: server, cacheDir: certificates.scratch.path + "/cache")

        for result in try await Self.run(commands, environment: ["SSL_CERT_FILE": ""]) {
            #expect(result.status == 3, "\(result.stdout) \(result.stderr)")
            #expect(result.stderr == Self.untrusted)
        }
        Self.expectAnswered(try await Self.run(commands, extra: ["--ca-cert", certificates.caPath]))
        Self.expectAnswered(try await Self.run(commands, environment: ["SSL_CERT_FILE": certificates.caPath]))

        // A file that holds no certificate, or none at all, is named before any request.
        let notPEM = try await CLIProcess.run(commands[0] + ["--ca-cert", certificates.leafKeyPath])
        #expect(notPEM.status == 1)
        #expect(notPEM.stderr == "Error: --ca-cert \(certificates.leafKeyPath) cannot be read as PEM certificates\n")
        let missing = try await CLIProcess.run(commands[1], environment: ["SSL_CERT_FILE": "/nonexistent/ca.pem"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: SSL_CERT_FILE /nonexistent/ca.pem does not exist\n")
    }

    @Test func aSelfSignedServerIsReachedWithItsOwnCertificateAsTheCAFile() async throws {
        let certificates = try Certificates.make()
        defer { certificates.scratch.remove() }
        let server = try await ServedGatehouse.start([
            "--tls-cert", certificates.selfSignedPath, "--tls-key", certificates.selfSignedKeyPath,
        ])
        defer { server.stop() }
        let base = "https://localhost:\(server.port)"
        let commands = Self.commands(base, server: server, cacheDir: certificates.scratch.path + "/cache")
        let refused = try await CLIProcess.run(commands[0], environment: ["SSL_CERT_FILE": ""])
        #expect(refused.status == 3)
        #expect(refused.stderr == Self.untrusted)
        Self.expectAnswered(try await Self.run(commands, extra: ["--ca-cert", certificates.selfSignedPath]))
    }
}
