/// The claim names of a Limited Login id_token, spelled once for the server that signs it and the SDK that
/// reads it.
///
/// The registered claims are here; each profile claim is the `idTokenClaim` of a `UserField` (`user_hometown`
/// is the hometown field's), so the issuer fills the token from the field table and the SDK decodes with it.
package enum IDTokenClaim: String, CaseIterable, Sendable {
    case issuer = "iss"
    case audience = "aud"
    case subject = "sub"
    case issuedAt = "iat"
    case expiresAt = "exp"
    case tokenID = "jti"
    case nonce = "nonce"
}
