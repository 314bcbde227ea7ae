import Foundation
import GatehouseCore
import Testing

/// TOTP and base32 against the RFCs' own test vectors.
@Suite struct TOTPTests {
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test("RFC 4648 §10 base32 vectors, padded and not, and back")
    func base32Vectors() {
        let vectors = [
            "": "", "f": "MY======", "fo": "MZXQ====", "foo": "MZXW6===", "foob": "MZXW6YQ=", "fooba": "MZXW6YTB",
            "foobar": "MZXW6YTBOI======",
        ]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8), padded: true) == encoded)
            #expect(Base32.encode(Array(plain.utf8)) == encoded.replacingOccurrences(of: "=", with: ""))
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        // People type secrets in lower case and in groups.
        #expect(Base32.decode("mzxw 6ytb-oi") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
        #expect(Base32.decode("ÄBC") == nil)
    }

    @Test("RFC 4226 appendix D: HOTP values for counters 0 to 9")
    func hotpVectors() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        let totp = TOTP(secret: Self.rfcSecret)
        for (counter, code) in expected.enumerated() { #expect(totp.code(step: Int64(counter)) == code) }
    }

    @Test("RFC 6238 appendix B: SHA-1 values (8 digits)")
    func totpVectors() {
        let expected: [(TimeInterval, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        let totp = TOTP(secret: Self.rfcSecret, digits: 8)
        for (time, code) in expected { #expect(totp.code(at: Date(timeIntervalSince1970: time)) == code) }
    }

    @Test("a code matches its step and one either side, and only after the last used step")
    func window() {
        let totp = TOTP(secret: Self.rfcSecret)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let step = totp.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step), at: now, after: nil) == step)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now, after: nil) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now, after: nil) == step + 1)
        #expect(totp.matchingStep(totp.code(step: step - 2), at: now, after: nil) == nil)
        #expect(totp.matchingStep(totp.code(step: step + 2), at: now, after: nil) == nil)
        // Used once: the same code, or an older one, no longer passes.
        #expect(totp.matchingStep(totp.code(step: step), at: now, after: step) == nil)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now, after: step) == nil)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now, after: step) == step + 1)
        // Typed with a space, or not digits at all.
        let code = totp.code(step: step)
        #expect(totp.matchingStep(String(code.prefix(3)) + " " + String(code.suffix(3)), at: now, after: nil) == step)
        #expect(totp.matchingStep("12345", at: now, after: nil) == nil)
        #expect(totp.matchingStep("１２３４５６", at: now, after: nil) == nil)
    }

    @Test("the otpauth URI names the issuer and account and carries the base32 secret")
    func provisioningURI() {
        let uri = TOTP(secret: Array("foobar".utf8)).provisioningURI(issuer: "Gatehouse", account: "ada@example.com")
        #expect(
            uri
                == "otpauth://totp/Gatehouse:ada%40example.com?secret=MZXW6YTBOI&issuer=Gatehouse&algorithm=SHA1&digits=6&period=30"
        )
    }
}
