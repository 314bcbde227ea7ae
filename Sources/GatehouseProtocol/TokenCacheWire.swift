import Crypto
import Foundation

/// The remote token cache's wire vocabulary, shared by the server, the SDK's `RemoteTokenCache` and an app's
/// backend.
///
/// A slot is named by the app's own session secret (`session_key`, minted by the app's backend for a
/// person's session, never a guessable id) and unlocked by `session_proof`, which only a holder of the app
/// secret can compute: so only sessions the app's backend created can use the cache.
package enum TokenCacheWire {
    /// Shortest and longest `session_key` accepted (at least 128 bits as hex or base64url text).
    package static let sessionKeyLength = 32...512
    /// Largest `token_info` accepted, in UTF-8 bytes.
    package static let maxTokenInfoBytes = 16 * 1024

    /// `session_proof`: lowercase hex HMAC-SHA256(key: app secret, message: `"token_cache:" + sessionKey`).
    /// The prefix keeps it distinct from an `appsecret_proof` over the same text.
    package static func sessionProof(sessionKey: String, appSecret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(("token_cache:" + sessionKey).utf8), using: SymmetricKey(data: Data(appSecret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Constant-time check of a presented proof.
    package static func proofMatches(_ proof: String, sessionKey: String, appSecret: String) -> Bool {
        constantTimeEquals(
            Array(proof.lowercased().utf8), Array(sessionProof(sessionKey: sessionKey, appSecret: appSecret).utf8))
    }

    /// The `errorCode` values of a `{"status":false,…}` reply (the seed's codes, plus Gatehouse's own).
    package enum ErrorCode: Int, Sendable, CaseIterable {
        /// Missing or malformed `session_key` / `token_info` (seed: "Invalid data input.").
        case invalidInput = 30001
        /// No valid app credentials (`access_token` is not this app's client token or app token).
        case invalidCredentials = 30002
        /// `session_proof` missing or wrong.
        case invalidSessionProof = 30003
        /// The data could not be stored.
        case writeFailed = 50001
        /// Nothing is cached for this session (seed: "Could not read file contents or data empty.").
        case noData = 50002
        /// Not GET, POST or DELETE.
        case unsupportedMethod = 50003

        /// The plain-language reason, for the request journal (never the wire).
        package var explanation: String {
            switch self {
            case .invalidInput: "the token cache request is missing or has a malformed field"
            case .invalidCredentials:
                "the token cache request's app credentials (client id and token) do not match an app"
            case .invalidSessionProof:
                "session_proof is not HMAC-SHA256(app secret, \"token_cache:\" + session key)"
            case .writeFailed: "the token cache slot could not be written"
            case .noData: "there is nothing stored in this token cache slot"
            case .unsupportedMethod: "the token cache does not accept this method"
            }
        }
    }
}
