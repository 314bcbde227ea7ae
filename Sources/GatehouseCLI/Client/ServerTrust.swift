import ArgumentParser
import AsyncHTTPClient
import Foundation
import GatehouseCore
import GatehouseKit
import NIOCore
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--ca-cert FILE`, for every command that takes `--server`: the certificate authorities (PEM, one or more) the
/// CLI trusts for an `https://` server besides the system's, e.g. a private CA's or the server's own self-signed
/// certificate. Without it, `SSL_CERT_FILE` names the file, as for OpenSSL-based tools.
struct TrustOptions: ParsableArguments {
    @Option(
        name: .customLong("ca-cert"),
        help: "Trust the certificate authorities in this PEM file for an https --server (env SSL_CERT_FILE).")
    var caCert: String?

    /// The trust the options ask for; a file that cannot be read as PEM certificates is an error naming it.
    func trust() throws -> ServerTrust {
        if let caCert { return try ServerTrust(file: caCert, source: "--ca-cert") }
        if let file = Environment.value("SSL_CERT_FILE"), !file.isEmpty {
            return try ServerTrust(file: file, source: "SSL_CERT_FILE")
        }
        return ServerTrust()
    }
}

/// The roots an `https://` server's certificate may chain to: the system's, plus a PEM file's when one is given.
struct ServerTrust: Sendable {
    /// The extra roots' file, or nil for the system's roots alone.
    let file: String?
    let roots: [NIOSSLCertificate]

    init() {
        file = nil
        roots = []
    }

    init(file: String, source: String) throws {
        guard FileManager.default.fileExists(atPath: file) else { throw CLIError("\(source) \(file) does not exist") }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMFile(file) } catch {
            throw CLIError("\(source) \(file) cannot be read as PEM certificates")
        }
        guard !certificates.isEmpty else { throw CLIError("\(source) \(file) holds no PEM certificate") }
        self.file = file
        roots = certificates
    }

    /// Full verification (chain and host name) against the system's roots and ``roots``.
    var tlsConfiguration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if !roots.isEmpty { tls.additionalTrustRoots = [.certificates(roots)] }
        return tls
    }

    /// The session the SDK and the admin client send with: the SDK's uncached session, whose `https://` requests
    /// go through ``TrustedHTTPSProtocol`` when extra roots are given (Foundation's URLSession has no way to add
    /// roots on Linux, where it runs on libcurl).
    func urlSession() -> URLSession {
        guard !roots.isEmpty else { return .gatehouseUncached() }
        TrustedHTTPSProtocol.install(tlsConfiguration)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.protocolClasses = [TrustedHTTPSProtocol.self] + (configuration.protocolClasses ?? [])
        return URLSession(configuration: configuration)
    }

    /// Why `server`'s certificate is not trusted, or nil when it is (or the server is not `https://`, or a TLS
    /// handshake never starts): asked after a request failed, so that the failure can be named plainly.
    func certificateProblem(at server: String) async -> String? {
        guard let url = URL(string: server), url.scheme?.lowercased() == "https", let host = url.host else {
            return nil
        }
        let port = url.port.map { ":\($0)" } ?? ""
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tlsConfiguration))
        let problem: String?
        do {
            _ = try await http.execute(HTTPClientRequest(url: "https://\(host)\(port)/healthz"), timeout: .seconds(15))
            problem = nil
        } catch {
            problem = Self.certificateFailure(error)
        }
        try? await http.shutdown()
        return problem
    }

    /// The certificate failure `error` reports, in a few words, or nil for any other failure.
    static func certificateFailure(_ error: any Error) -> String? {
        let text = String(describing: error)
        if error is NIOSSLExtraError, text.contains("hostname") || text.contains("Hostname") {
            return "it is not issued for this host name"
        }
        guard error is NIOSSLError || error is BoringSSLError else { return nil }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return "it was not issued by a certificate authority this machine trusts"
        }
        return nil
    }

    /// The line for a request that failed: the certificate named when it is the reason, else "cannot reach".
    func unreachableMessage(_ server: String) async -> String {
        if let problem = await certificateProblem(at: server) {
            return "the server's certificate is not trusted (\(problem)); pass --ca-cert FILE or set SSL_CERT_FILE"
        }
        return "cannot reach the Gatehouse server at \(server). Is `gatehouse serve` running?"
    }
}
