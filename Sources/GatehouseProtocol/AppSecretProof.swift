import Crypto
import Foundation

/// `appsecret_proof`: lowercase hex HMAC-SHA256 of the access token keyed with the app secret.
///
/// It proves a Graph call comes from the app's server (which knows the secret) and not from a
/// stolen token alone; facebook-sdk and social-core both send it.
package enum AppSecretProof {
    /// The proof for `accessToken`.
    package static func compute(accessToken: String, appSecret: String) -> String {
        hex(hmacSHA256(key: appSecret, message: accessToken))
    }

    /// Whether `proof` is the proof for `accessToken`, comparing in constant time so response
    /// timing cannot reveal how many leading characters were right. Hex is case-insensitive.
    package static func matches(_ proof: String, accessToken: String, appSecret: String) -> Bool {
        let expected = compute(accessToken: accessToken, appSecret: appSecret)
        return constantTimeEquals(Array(proof.lowercased().utf8), Array(expected.utf8))
    }
}

// MARK: - Shared primitives
// Used by signed_request and PKCE too; internal so the public surface stays at the protocol level.

/// HMAC-SHA256 of the UTF-8 bytes of `message`, keyed with the UTF-8 bytes of `key`, the
/// construction both signed_request and appsecret_proof use.
func hmacSHA256(key: String, message: String) -> [UInt8] {
    let code = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(key.utf8)))
    return Array(code)
}

/// Lowercase hex of `bytes`.
func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".unicodeScalars)
    var output = ""
    for byte in bytes {
        output.unicodeScalars.append(digits[Int(byte >> 4)])
        output.unicodeScalars.append(digits[Int(byte & 0xF)])
    }
    return output
}

/// Compares without an early exit, so the time taken does not depend on where the inputs first
/// differ. Lengths are not secret (proofs, signatures and challenges have fixed lengths).
func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices {
        difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
}
