import Foundation
import JWTKit

/// The claims of a Gatehouse id_token, named as Facebook's Limited Login tokens name them.
///
/// Optional claims are present only when the person granted the permission behind them; there is no `at_hash`
/// (social-core compares it against the hash of "").
package struct IDTokenClaims: JWTPayload, Equatable {
    package struct AgeRange: Codable, Sendable, Equatable {
        package var min: Int?
        package var max: Int?

        package init(min: Int? = nil, max: Int? = nil) {
            self.min = min
            self.max = max
        }
    }

    package struct Place: Codable, Sendable, Equatable {
        package var id: String
        package var name: String

        package init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    package var iss: String
    package var aud: String
    package var sub: String
    package var iat: Int
    package var exp: Int
    package var jti: String
    package var nonce: String?
    package var name: String?
    package var given_name: String?
    package var middle_name: String?
    package var family_name: String?
    package var email: String?
    package var picture: String?
    package var user_friends: [String]?
    package var user_birthday: String?
    package var user_age_range: AgeRange?
    package var user_hometown: Place?
    package var user_location: Place?
    package var user_gender: String?
    package var user_link: String?

    /// Gatehouse signs, it does not verify its own payloads here; verifiers check the claims themselves.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
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
