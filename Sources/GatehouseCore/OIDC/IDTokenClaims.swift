import Foundation
import GatehouseProtocol
import JWTKit

/// The claims of a Gatehouse id_token, named as Facebook's Limited Login tokens name them.
///
/// The registered claims are properties named by `IDTokenClaim`; the profile claims are kept by `UserField`, and
/// each is written under that field's `idTokenClaim`, so no claim name is spelled here. Optional claims are present
/// only when the person granted the permission behind them; there is no `at_hash` (social-core compares it against
/// the hash of "").
package struct IDTokenClaims: JWTPayload, Equatable {
    package var iss: String
    package var aud: String
    package var sub: String
    package var iat: Int
    package var exp: Int
    package var jti: String
    package var nonce: String?
    /// The profile claims, in the order they were set, by claim name.
    package private(set) var profile = JSONObject()

    /// The registered claims; the profile claims start empty.
    package init(iss: String, aud: String, sub: String, iat: Int, exp: Int, jti: String, nonce: String?) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.nonce = nonce
    }

    /// The claim that carries `field`; setting a field with no claim (`locale`), or nil, leaves the token as it was.
    package subscript(field: UserField) -> JSONValue? {
        get { field.idTokenClaim.flatMap { profile[$0] } }
        set {
            guard let claim = field.idTokenClaim else { return }
            _ = profile.removeValue(forKey: claim)
            if let newValue { profile.pairs.append((claim, newValue)) }
        }
    }

    /// Gatehouse signs, it does not verify its own payloads here; verifiers check the claims themselves.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension IDTokenClaims {
    /// The payload: the registered claims in `IDTokenClaim` order (`nonce` only when there is one), then the profile.
    package func encode(to encoder: any Encoder) throws {
        var object = JSONObject()
        for claim in IDTokenClaim.allCases {
            switch claim {
            case .issuer: object.pairs.append((claim.rawValue, .string(iss)))
            case .audience: object.pairs.append((claim.rawValue, .string(aud)))
            case .subject: object.pairs.append((claim.rawValue, .string(sub)))
            case .issuedAt: object.pairs.append((claim.rawValue, .int(Int64(iat))))
            case .expiresAt: object.pairs.append((claim.rawValue, .int(Int64(exp))))
            case .tokenID: object.pairs.append((claim.rawValue, .string(jti)))
            case .nonce: if let nonce { object.pairs.append((claim.rawValue, .string(nonce))) }
            }
        }
        object.pairs += profile.pairs
        try object.encode(to: encoder)
    }

    /// Reads a payload back (tests, tools); claims outside the registered ones and the field table are dropped.
    package init(from decoder: any Decoder) throws {
        let object = try JSONObject(from: decoder)
        func text(_ claim: IDTokenClaim) throws -> String {
            guard let value = object[claim.rawValue]?.stringValue else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "missing \(claim.rawValue)"))
            }
            return value
        }
        func number(_ claim: IDTokenClaim) throws -> Int {
            guard let value = object[claim.rawValue]?.intValue else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "missing \(claim.rawValue)"))
            }
            return Int(value)
        }
        self.init(
            iss: try text(.issuer), aud: try text(.audience), sub: try text(.subject), iat: try number(.issuedAt),
            exp: try number(.expiresAt), jti: try text(.tokenID),
            nonce: object[IDTokenClaim.nonce.rawValue]?.stringValue)
        for field in UserField.claims { self[field] = object[field.idTokenClaim ?? ""] }
    }
}

/// How long an id_token is valid.
package enum IDTokenLifetime {
    package static let seconds: TimeInterval = 3600
}
