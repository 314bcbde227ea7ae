import Foundation
import JWTKit

/// The claims of a Gatehouse id_token, named as Facebook's Limited Login tokens name them.
///
/// Optional claims are present only when the person granted the permission behind them; there is no `at_hash`
/// (social-core compares it against the hash of "").
public struct IDTokenClaims: JWTPayload, Equatable {
    public struct AgeRange: Codable, Sendable, Equatable {
        public var min: Int?
        public var max: Int?

        package init(min: Int? = nil, max: Int? = nil) {
            self.min = min
            self.max = max
        }
    }

    public struct Place: Codable, Sendable, Equatable {
        public var id: String
        public var name: String

        package init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var iss: String
    public var aud: String
    public var sub: String
    public var iat: Int
    public var exp: Int
    public var jti: String
    public var nonce: String?
    public var name: String?
    public var given_name: String?
    public var middle_name: String?
    public var family_name: String?
    public var email: String?
    public var picture: String?
    public var user_friends: [String]?
    public var user_birthday: String?
    public var user_age_range: AgeRange?
    public var user_hometown: Place?
    public var user_location: Place?
    public var user_gender: String?
    public var user_link: String?

    /// Gatehouse signs, it does not verify its own payloads here; verifiers check the claims themselves.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// How long an id_token is valid.
package enum IDTokenLifetime {
    package static let seconds: TimeInterval = 3600
}

extension IDTokenClaims {
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
}
