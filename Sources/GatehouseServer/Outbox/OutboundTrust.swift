import Foundation
import GatehouseCore
import NIOSSL

/// What the server's outbound HTTPS requests trust (callbacks, webhooks, event sinks alike): the system's roots,
/// plus the CA certificates of `outbound.ca_file`, read once when the services are built.
package enum OutboundTrust {
    /// The certificates of a PEM file, or a ``ConfigurationError`` saying why there are none.
    package static func certificates(inFile path: String) throws -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigurationError("cannot read \(path)")
        }
        let certificates = (try? NIOSSLCertificate.fromPEMFile(path)) ?? []
        guard !certificates.isEmpty else {
            throw ConfigurationError("\(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// The TLS client configuration for `outbound`: nil (the system's defaults) without a CA file, else the
    /// system's roots and the file's certificates.
    package static func tlsConfiguration(_ outbound: OutboundConfiguration) throws -> TLSConfiguration? {
        guard let path = outbound.caFile else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates(try certificates(inFile: path))]
        return tls
    }

    /// A TLS failure said in words an operator can act on (the journal, the verification refusal), or nil for an
    /// error that is not about the far end's certificate.
    static func refusal(_ error: any Error) -> CallbackRefused? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return CallbackRefused(description: "the callback's TLS certificate does not name its host")
        }
        guard let ssl = error as? NIOSSLError, case .handshakeFailed(let reason) = ssl else { return nil }
        if "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
            return CallbackRefused(
                description: "the callback's TLS certificate is not trusted (a receiver whose certificate a private CA "
                    + "issued needs that CA in outbound.ca_file)")
        }
        return CallbackRefused(description: "the TLS handshake with the callback failed")
    }
}
