import Foundation
import Testing
@testable import GatehouseProtocol

@Suite struct SignedRequestTests {
    /// Computed with Python's `hmac` and `base64.urlsafe_b64encode` (padding stripped).
    let pythonVector =
        "snfZGIP6_zg0zyoYBZIvrz8YeQxz3ijaQDToVjVLw10."
        + "eyJhbGdvcml0aG0iOiJITUFDLVNIQTI1NiIsImlzc3VlZF9hdCI6MTcwMDAwMDAwMCwidXNlcl9pZCI6IjEyMDcwNTkifQ"

    @Test func makeMatchesPythonVector() {
        let payload: JSONObject = ["algorithm": "HMAC-SHA256", "issued_at": 1_700_000_000, "user_id": "1207059"]
        #expect(SignedRequest.make(payload: payload, secret: "s3cr3t") == pythonVector)
    }

    @Test func makeAppendsAlgorithmWhenMissing() {
        let payload: JSONObject = ["user_id": "42", "code": "a/b", "name": "Zoë"]
        #expect(
            SignedRequest.make(payload: payload, secret: "secret")
                == "su2nQB-Xuqh4whnwd_3wfP4uQeotu2H0FntPmojIF5I."
                + "eyJ1c2VyX2lkIjoiNDIiLCJjb2RlIjoiYS9iIiwibmFtZSI6Ilpvw6siLCJhbGdvcml0aG0iOiJITUFDLVNIQTI1NiJ9")
    }

    @Test func parsesPythonVector() throws {
        let payload = try SignedRequest.parse(pythonVector, secret: "s3cr3t")
        #expect(payload.serialized() == #"{"algorithm":"HMAC-SHA256","issued_at":1700000000,"user_id":"1207059"}"#)
    }

    @Test func roundTripsWithAge() throws {
        let signed = SignedRequest.make(payload: ["issued_at": 1000, "user_id": "7"], secret: "k")
        let now = Date(timeIntervalSince1970: 1000 + 86_400)
        #expect(try SignedRequest.parse(signed, secret: "k", maxAge: 86_400, now: now)["user_id"] == "7")
        #expect(throws: SignedRequestError.expired) {
            try SignedRequest.parse(signed, secret: "k", maxAge: 86_399, now: now)
        }
        let undated = SignedRequest.make(payload: ["user_id": "7"], secret: "k")
        #expect(throws: SignedRequestError.expired) { try SignedRequest.parse(undated, secret: "k", maxAge: 60) }
        #expect(try SignedRequest.parse(undated, secret: "k")["user_id"] == "7")
    }

    /// Issue 27 finding 8: a request dated ahead passed the age check for as long as it stayed ahead. Up to
    /// `maxFutureSkew` (clock skew) is accepted; beyond it is refused exactly as an expired one is.
    @Test func refusesIssuedAtBeyondTheSkewAhead() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func dated(_ offset: Int) -> String {
            SignedRequest.make(
                payload: ["issued_at": .int(Int64(1_800_000_000 + offset)), "user_id": "7"], secret: "k")
        }
        #expect(SignedRequest.maxFutureSkew == 300)
        #expect(try SignedRequest.parse(dated(300), secret: "k", maxAge: 86_400, now: now)["user_id"] == "7")
        #expect(throws: SignedRequestError.expired) {
            try SignedRequest.parse(dated(301), secret: "k", maxAge: 86_400, now: now)
        }
        #expect(throws: SignedRequestError.expired) {
            try SignedRequest.parse(dated(10 * 365 * 86_400), secret: "k", maxAge: 86_400, now: now)
        }
    }

    @Test func rejectsTampering() {
        #expect(throws: SignedRequestError.badSignature) { try SignedRequest.parse(pythonVector, secret: "wrong") }
        var tamperedSignature = Array(pythonVector)
        tamperedSignature[0] = "t"
        #expect(throws: SignedRequestError.badSignature) {
            try SignedRequest.parse(String(tamperedSignature), secret: "s3cr3t")
        }
        let signature = pythonVector.split(separator: ".")[0]
        let forgedPayload = Base64URL.encode(#"{"algorithm":"HMAC-SHA256","issued_at":1700000000,"user_id":"1"}"#)
        #expect(throws: SignedRequestError.badSignature) {
            try SignedRequest.parse("\(signature).\(forgedPayload)", secret: "s3cr3t")
        }
    }

    @Test func rejectsOtherAlgorithms() throws {
        let payload = Base64URL.encode(#"{"algorithm":"none","user_id":"1"}"#)
        let signature = Base64URL.encode(HMACVector.sign(payload, key: "k"))
        #expect(throws: SignedRequestError.unsupportedAlgorithm) {
            try SignedRequest.parse("\(signature).\(payload)", secret: "k")
        }
        let lowercase = Base64URL.encode(#"{"algorithm":"hmac-sha256"}"#)
        #expect(
            try SignedRequest.parse(
                "\(Base64URL.encode(HMACVector.sign(lowercase, key: "k"))).\(lowercase)", secret: "k"
            ).count == 1)
    }

    @Test(arguments: ["", ".", "abc", "a.b.c", ".eyJ9", "abc.", "a+b.eyJ9", "abc.!!!"])
    func rejectsMalformed(input: String) {
        #expect(throws: SignedRequestError.malformed) { try SignedRequest.parse(input, secret: "k") }
    }

    @Test func rejectsSignedNonObjectPayload() {
        let payload = Base64URL.encode("[1]")
        #expect(throws: SignedRequestError.malformed) {
            try SignedRequest.parse("\(Base64URL.encode(HMACVector.sign(payload, key: "k"))).\(payload)", secret: "k")
        }
    }

    @Test func unverifiedPayloadIgnoresSignature() {
        #expect(
            SignedRequest.unverifiedPayload("garbage." + pythonVector.split(separator: ".")[1])?["user_id"] == "1207059"
        )
        #expect(SignedRequest.unverifiedPayload("no-dot") == nil)
        #expect(SignedRequest.unverifiedPayload("a.\(Base64URL.encode("not json"))") == nil)
    }
}

/// Raw HMAC via the module's internal helper, to sign hand-built payloads.
enum HMACVector {
    static func sign(_ message: String, key: String) -> [UInt8] {
        hmacSHA256(key: key, message: message)
    }
}

@Suite struct AppSecretProofTests {
    /// `hmac.new(b"app-secret", b"EAAB1234token", hashlib.sha256).hexdigest()`
    let expected = "ad7f5f7b04bd7e84e8f2f3b8e09959ea042d9192297b8440416183a43f43487c"

    @Test func computeMatchesPython() {
        #expect(AppSecretProof.compute(accessToken: "EAAB1234token", appSecret: "app-secret") == expected)
    }

    @Test func matches() {
        #expect(AppSecretProof.matches(expected, accessToken: "EAAB1234token", appSecret: "app-secret"))
        #expect(AppSecretProof.matches(expected.uppercased(), accessToken: "EAAB1234token", appSecret: "app-secret"))
        #expect(!AppSecretProof.matches(expected, accessToken: "EAAB1234tokem", appSecret: "app-secret"))
        #expect(
            !AppSecretProof.matches(String(expected.dropLast()), accessToken: "EAAB1234token", appSecret: "app-secret"))
        #expect(!AppSecretProof.matches("", accessToken: "EAAB1234token", appSecret: "app-secret"))
    }
}

@Suite struct PKCETests {
    /// RFC 7636 Appendix B.
    let rfcVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    let rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test func s256MatchesRFCAndPython() {
        #expect(PKCE.challenge(verifier: rfcVerifier, method: "S256") == rfcChallenge)
        #expect(
            PKCE.challenge(verifier: "abcdefghijklmnopqrstuvwxyz0123456789-._~ABCDEFG", method: "S256")
                == "TDp3C-wPo3aKDK1Bg-ukP78nZ9YiqUD2ToRD96HoaHU")
        #expect(PKCE.challenge(verifier: rfcVerifier, method: "plain") == rfcVerifier)
        #expect(PKCE.challenge(verifier: rfcVerifier, method: "s256") == nil)
        #expect(PKCE.isSupportedMethod("S256") && PKCE.isSupportedMethod("plain") && !PKCE.isSupportedMethod("RS256"))
    }

    @Test func verifierRules() {
        #expect(PKCE.isValidVerifier(rfcVerifier))
        #expect(PKCE.isValidVerifier(String(repeating: "a", count: 128)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "+"))
        #expect(!PKCE.isValidVerifier(String(repeating: "é", count: 43)))
    }

    @Test func verify() {
        #expect(PKCE.verify(verifier: rfcVerifier, challenge: rfcChallenge, method: "S256"))
        #expect(PKCE.verify(verifier: rfcVerifier, challenge: rfcVerifier, method: "plain"))
        #expect(!PKCE.verify(verifier: rfcVerifier, challenge: rfcChallenge, method: "plain"))
        #expect(!PKCE.verify(verifier: rfcVerifier + "x", challenge: rfcChallenge, method: "S256"))
        #expect(!PKCE.verify(verifier: "short", challenge: "short", method: "plain"))
        #expect(!PKCE.verify(verifier: rfcVerifier, challenge: rfcChallenge, method: "S512"))
    }
}
