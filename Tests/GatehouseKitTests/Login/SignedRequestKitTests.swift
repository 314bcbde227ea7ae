import Crypto
import Foundation
import GatehouseKit
import Testing

/// `SignedRequest.parse(_:secret:)` as an app's backend uses it, with only `import GatehouseKit`.
@Suite struct SignedRequestKitTests {
    @Test func parsesWhatGatehouseSignsAndRejectsForgeries() throws {
        let signed = SignedRequest.make(payload: ["issued_at": 1_800_000_000, "user_id": "42"], secret: "s3cret")
        let payload = try SignedRequest.parse(signed, secret: "s3cret")
        #expect(payload["user_id"]?.stringValue == "42")
        #expect(payload["algorithm"]?.stringValue == "HMAC-SHA256")
        #expect(throws: SignedRequestError.badSignature) { try SignedRequest.parse(signed, secret: "wrong") }
        #expect(throws: SignedRequestError.malformed) {
            try SignedRequest.parse("not-a-signed-request", secret: "s3cret")
        }
        // A correctly signed payload with another algorithm is refused.
        let other = Self.sign(#"{"algorithm":"HMAC-SHA1","user_id":"42"}"#, secret: "s3cret")
        #expect(throws: SignedRequestError.unsupportedAlgorithm) { try SignedRequest.parse(other, secret: "s3cret") }
        #expect(throws: SignedRequestError.expired) {
            try SignedRequest.parse(
                signed, secret: "s3cret", maxAge: 3600, now: Date(timeIntervalSince1970: 1_800_090_000))
        }
    }

    /// Signs raw payload text, as a forger who knows the secret but picks the algorithm would.
    static func sign(_ payload: String, secret: String) -> String {
        func b64url(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let encoded = b64url(Data(payload.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(encoded.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return b64url(Data(mac)) + "." + encoded
    }
}
