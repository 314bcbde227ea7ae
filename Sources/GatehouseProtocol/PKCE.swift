import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), which the iOS SDK uses since v13 in place of a client
/// secret: the dialog receives `code_challenge`, the token endpoint `code_verifier`.
package enum PKCE {
    /// The challenge for `verifier`: base64url(SHA-256(verifier)) without padding for `S256`,
    /// the verifier itself for `plain`, nil for any other method (names are case-sensitive).
    package static func challenge(verifier: String, method: String) -> String? {
        switch method {
        case "S256": return Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
        case "plain": return verifier
        default: return nil
        }
    }

    /// Whether `method` is one this server implements.
    package static func isSupportedMethod(_ method: String) -> Bool {
        method == "S256" || method == "plain"
    }

    /// Whether `verifier` is 43–128 characters from `A-Z a-z 0-9 - . _ ~` (RFC 7636 §4.1).
    package static func isValidVerifier(_ verifier: String) -> Bool {
        let bytes = verifier.utf8
        return (43...128).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    return true
                default:
                    return false
                }
            }
    }

    /// Whether `verifier` answers `challenge` under `method`. Malformed verifiers fail even if
    /// they happen to hash right, so a client bug surfaces here rather than at real Facebook; the
    /// comparison is constant-time.
    package static func verify(verifier: String, challenge: String, method: String) -> Bool {
        guard isValidVerifier(verifier), let expected = self.challenge(verifier: verifier, method: method) else {
            return false
        }
        return constantTimeEquals(Array(expected.utf8), Array(challenge.utf8))
    }
}
