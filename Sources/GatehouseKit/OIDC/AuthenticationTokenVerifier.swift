import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import SwiftASN1
import X509
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Verifies a Limited Login id_token as Facebook's iOS SDK does (`AuthenticationTokenFactory`).
///
/// Three segments; header `alg` RS256 with a `kid`; the key from the server's `kid` → X.509 PEM map
/// (`/.well-known/oauth/openid/certs/`, cached, fetched again for an unknown `kid` at most once every
/// ``refetchInterval``); the RS256 signature over `header.payload`; then the claims. Every failure is
/// `LoginError(.invalidIDToken)` (309).
///
/// The certificates are fetched over `https` only, except from a loopback server (a local Gatehouse), since a
/// key fetched in the clear could be swapped by anyone on the path and would then vouch for any token.
public actor AuthenticationTokenVerifier {
    /// The least time between two fetches of the same certificate URL. Tokens with made-up `kid`s would otherwise
    /// make every verification a request to the server; a key rotated in meanwhile is found on the next fetch.
    public static let refetchInterval: TimeInterval = 60

    /// Fetches a certificate URL's `kid` → PEM map (replaced in tests to count fetches).
    typealias CertificateFetch = @Sendable (GatehouseKitEnvironment) async throws -> [String: String]

    private let environment: GatehouseKitEnvironment
    private let fetch: CertificateFetch
    /// Certificate URL → `kid` → key, so keys from one server never vouch for another's tokens.
    private var certificates: [String: [String: _RSA.Signing.PublicKey]] = [:]
    /// Certificate URL → when it was last fetched (successfully or not), from the environment's clock.
    private var fetchedAt: [String: Date] = [:]

    public init(environment: GatehouseKitEnvironment = .current) {
        self.init(environment: environment, fetch: Self.fetchFromServer)
    }

    init(environment: GatehouseKitEnvironment, fetch: @escaping CertificateFetch) {
        self.environment = environment
        self.fetch = fetch
    }

    /// The verified token and its claims.
    public func verify(_ tokenString: String, nonce: String) async throws -> (
        AuthenticationToken, AuthenticationTokenClaims
    ) {
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
        guard
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        else {
            throw Self.invalid("the id_token's signature does not verify")
        }
        guard let claims = AuthenticationTokenClaims(payload) else {
            throw Self.invalid("the id_token lacks required claims")
        }
        let settings = environment.settings
        if let problem = claims.validate(
            issuer: settings.serverURL.absoluteString, appID: settings.appID ?? "", nonce: nonce,
            now: environment.clock.now())
        {
            throw Self.invalid("claim check failed: \(problem)")
        }
        return (AuthenticationToken(tokenString: tokenString, nonce: nonce, graphDomain: "facebook"), claims)
    }

    private func publicKey(kid: String) async throws -> _RSA.Signing.PublicKey {
        let server = environment.settings.serverURL
        guard Self.mayFetchCertificates(from: server) else {
            throw Self.invalid(
                "the certificates must come over https (plain http only from a loopback server), not from \(server.absoluteString)"
            )
        }
        let url = server.absoluteString
        if let key = certificates[url]?[kid] { return key }
        let now = environment.clock.now()
        if let last = fetchedAt[url], now.timeIntervalSince(last) < Self.refetchInterval, now >= last {
            throw Self.invalid(
                "no published key has kid \(kid) (the certificates were fetched less than \(Int(Self.refetchInterval)) s ago)"
            )
        }
        // Recorded before the fetch, so verifications that arrive while it runs (the actor lets them in at the
        // await) do not start fetches of their own.
        fetchedAt[url] = now
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for (published, pem) in try await fetch(environment) {
            guard let certificate = try? Certificate(pemEncoded: pem),
                let key = _RSA.Signing.PublicKey(certificate.publicKey)
            else { continue }
            keys[published] = key
        }
        certificates[url] = keys
        guard let key = keys[kid] else { throw Self.invalid("no published key has kid \(kid)") }
        return key
    }

    /// Whether `server`'s certificates may be fetched: over https, or over http from a loopback address
    /// (`localhost`, 127.0.0.0/8, `::1`).
    static func mayFetchCertificates(from server: URL) -> Bool {
        switch server.scheme?.lowercased() {
        case "https": return true
        case "http":
            guard var host = server.host?.lowercased() else { return false }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host == "localhost" || host == "::1" { return true }
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
        default: return false
        }
    }

    /// `GET /.well-known/oauth/openid/certs/` on the environment's server.
    @Sendable static func fetchFromServer(_ environment: GatehouseKitEnvironment) async throws -> [String: String] {
        let response = try await GraphTransport(environment: environment).send(
            method: "GET", path: ".well-known/oauth/openid/certs/", parameters: [:], tokenString: nil, version: "")
        guard response.statusCode == 200, case .object(let map)? = response.json else {
            throw Self.invalid("the server's certificates are unavailable")
        }
        var pems: [String: String] = [:]
        for (kid, value) in map.pairs { if let pem = value.stringValue { pems[kid] = pem } }
        return pems
    }

    static func invalid(_ reason: String) -> LoginError { LoginError(.invalidIDToken, message: reason) }
}
