import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import X509
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Verifies a Limited Login id_token as Facebook's iOS SDK does (`AuthenticationTokenFactory`).
///
/// Three segments; header `alg` RS256 with a `kid`; the key from the server's `kid` → X.509 PEM map
/// (`/.well-known/oauth/openid/certs/`, cached, fetched again once for an unknown `kid`); the RS256
/// signature over `header.payload`; then the claims. Every failure is `LoginError(.invalidIDToken)` (309).
public actor AuthenticationTokenVerifier {
    private let environment: GatehouseKitEnvironment
    private var certificates: [String: _RSA.Signing.PublicKey] = [:]

    public init(environment: GatehouseKitEnvironment = .current) { self.environment = environment }

    /// The verified token and its claims.
    public func verify(_ tokenString: String, nonce: String) async throws -> (AuthenticationToken, AuthenticationTokenClaims) {
        let parts = tokenString.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
              let headerData = Base64URL.decode(parts[0]), let header = try? JSONValue.parse(headerData),
              let payloadData = Base64URL.decode(parts[1]), let payload = try? JSONValue.parse(payloadData),
              let signature = Base64URL.decode(parts[2])
        else { throw Self.invalid("the id_token is not a JWS") }
        guard header["alg"]?.stringValue == "RS256" else { throw Self.invalid("the id_token is not signed with RS256") }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else { throw Self.invalid("the id_token has no kid") }
        let key = try await publicKey(kid: kid)
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5) else {
            throw Self.invalid("the id_token's signature does not verify")
        }
        guard let claims = AuthenticationTokenClaims(payload) else { throw Self.invalid("the id_token lacks required claims") }
        let settings = environment.settings
        if let problem = claims.validate(issuer: settings.serverURL.absoluteString, appID: settings.appID ?? "", nonce: nonce, now: environment.clock.now()) {
            throw Self.invalid("claim check failed: \(problem)")
        }
        return (AuthenticationToken(tokenString: tokenString, nonce: nonce, graphDomain: "facebook"), claims)
    }

    private func publicKey(kid: String) async throws -> _RSA.Signing.PublicKey {
        if let key = certificates[kid] { return key }
        try await fetchCertificates()
        guard let key = certificates[kid] else { throw Self.invalid("no published key has kid \(kid)") }
        return key
    }

    private func fetchCertificates() async throws {
        let response = try await GraphTransport(environment: environment).send(
            method: "GET", path: ".well-known/oauth/openid/certs/", parameters: [:], tokenString: nil, version: "")
        guard response.statusCode == 200, case .object(let map)? = response.json else { throw Self.invalid("the server's certificates are unavailable") }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for (kid, value) in map.pairs {
            guard let pem = value.stringValue, let certificate = try? Certificate(pemEncoded: pem),
                  let key = _RSA.Signing.PublicKey(certificate.publicKey) else { continue }
            keys[kid] = key
        }
        certificates = keys
    }

    static func invalid(_ reason: String) -> LoginError { LoginError(.invalidIDToken, message: reason) }
}
