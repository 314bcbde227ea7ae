import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOCore

/// OpenID discovery and the signing keys in the three forms Facebook's clients read:
/// JWKS (backends), a kid → PEM certificate map (iOS SDK), a kid → PEM public key map (Android SDK).
struct DiscoveryController: Sendable {
    let services: GatehouseServices

    /// The registered claims (and `at_hash`, listed as Facebook lists it, never issued), then the profile claims
    /// of the field table.
    static let claimsSupported: [JSONValue] =
        (IDTokenClaim.allCases.map(\.rawValue) + ["at_hash"] + UserField.claims.compactMap(\.idTokenClaim)).map(
            JSONValue.string)

    /// Hummingbird matches each path with and without its trailing slash, as social-core needs.
    func register(on router: Router<GatehouseRequestContext>) {
        for path in ["/.well-known/openid-configuration"] {
            router.get(RouterPath(path)) { _, _ in Self.json(discovery()) }
        }
        for path in ["/.well-known/oauth/openid/jwks/"] {
            router.get(RouterPath(path)) { _, _ in
                Self.json(["keys": .array(try await services.keyRing.publishedKeys().map { try $0.jwk() })])
            }
        }
        for path in ["/.well-known/oauth/openid/certs/"] {
            router.get(RouterPath(path)) { _, _ in
                Self.json(
                    .object(
                        JSONObject(
                            try await services.keyRing.publishedKeys().map { ($0.kid, .string($0.certificatePEM)) })))
            }
        }
        for path in ["/.well-known/oauth/openid/keys/"] {
            router.get(RouterPath(path)) { _, _ in
                Self.json(
                    .object(
                        JSONObject(
                            try await services.keyRing.publishedKeys().map { ($0.kid, .string(try $0.publicKeyPEM())) })
                    ))
            }
        }
    }

    /// Facebook's discovery document, with this server as issuer, plus the token endpoint and PKCE methods
    /// the web OIDC code flow needs.
    func discovery() -> JSONValue {
        let base = services.configuration.baseURL
        return .object(
            JSONObject([
                ("issuer", .string(base)),
                ("authorization_endpoint", .string(base + "/dialog/oauth/")),
                ("token_endpoint", .string(base + "/" + WirePath.accessToken)),
                ("jwks_uri", .string(base + "/.well-known/oauth/openid/jwks/")),
                ("response_types_supported", ["id_token", "token id_token", "code"]),
                ("subject_types_supported", ["pairwise"]),
                ("id_token_signing_alg_values_supported", ["RS256"]),
                ("code_challenge_methods_supported", ["S256", "plain"]),
                (
                    "scopes_supported",
                    .array([Permission.openid, Permission.publicProfile, Permission.email].map(JSONValue.string))
                ),
                ("claims_supported", .array(Self.claimsSupported)),
            ]))
    }

    /// Cacheable and readable from any origin.
    static func json(_ value: JSONValue) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.cacheControl] = "public, max-age=3600"
        headers[.accessControlAllowOrigin] = "*"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
    }
}
