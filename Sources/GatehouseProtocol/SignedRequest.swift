import Crypto
import Foundation

/// Why a `signed_request` was rejected.
public enum SignedRequestError: Error, Sendable, Equatable {
    /// Not `signature.payload`, not base64url, or the payload is not a JSON object.
    case malformed
    /// `algorithm` is missing or not `HMAC-SHA256`.
    case unsupportedAlgorithm
    /// The signature does not match the payload under the app secret.
    case badSignature
    /// `issued_at` is missing, older than the allowed age, or further ahead than ``SignedRequest/maxFutureSkew``.
    case expired
}

/// Facebook's `signed_request`: `base64url(HMAC-SHA256(secret, base64url(payload))) "." base64url(payload)`,
/// padding stripped. It reaches apps through deauthorize and data-deletion callbacks, the JS SDK's
/// `fbsr_<appid>` cookie, canvas pages and the mobile login redirect.
public enum SignedRequest {
    /// The only algorithm Facebook uses.
    public static let algorithm = "HMAC-SHA256"

    /// How far ahead of the verifier's clock `issued_at` may be (clock skew between two machines), in seconds.
    /// Without a bound, a request dated years ahead would pass the age check for years.
    public static let maxFutureSkew: TimeInterval = 300

    /// Signs `payload`. `algorithm` is set to `HMAC-SHA256` (appended if missing, replaced in
    /// place otherwise) because every verifier rejects a request without it.
    public static func make(payload: JSONObject, secret: String) -> String {
        var payload = payload
        payload["algorithm"] = .string(algorithm)
        let encodedPayload = Base64URL.encode(payload.serialized())
        let signature = Base64URL.encode(hmacSHA256(key: secret, message: encodedPayload))
        return signature + "." + encodedPayload
    }

    /// Verifies and decodes a signed request.
    ///
    /// The signature is checked (in constant time) before the payload is interpreted, so forged
    /// input never reaches the JSON parser's results. The algorithm check is case-insensitive, as
    /// in facebook-sdk. With `maxAge`, `issued_at` must be present and no older than that (social-core
    /// uses one day), and at most ``maxFutureSkew`` ahead of `now` (clock skew); either failure is `.expired`.
    public static func parse(
        _ signedRequest: String, secret: String, maxAge: TimeInterval? = nil, now: Date = Date()
    ) throws(SignedRequestError) -> JSONObject {
        let parts = signedRequest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            let signature = Base64URL.decode(String(parts[0])),
            let payloadBytes = Base64URL.decode(String(parts[1]))
        else { throw .malformed }

        let expected = hmacSHA256(key: secret, message: String(parts[1]))
        guard constantTimeEquals(Array(signature), expected) else { throw .badSignature }

        guard case .object(let payload)? = try? JSONValue.parse(payloadBytes) else { throw .malformed }
        guard payload["algorithm"]?.stringValue?.uppercased() == algorithm else { throw .unsupportedAlgorithm }

        if let maxAge {
            guard let issuedAt = payload["issued_at"]?.intValue else { throw .expired }
            let age = now.timeIntervalSince1970 - Double(issuedAt)
            guard age <= maxAge, age >= -maxFutureSkew else { throw .expired }
        }
        return payload
    }

    /// The payload without checking the signature.
    ///
    /// The iOS SDK reads `user_id` from the login redirect this way because an app has no secret;
    /// never use it to make an authorization decision.
    public static func unverifiedPayload(_ signedRequest: String) -> JSONObject? {
        let parts = signedRequest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = Base64URL.decode(String(parts[1])),
            case .object(let payload)? = try? JSONValue.parse(bytes)
        else { return nil }
        return payload
    }
}
