import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 6 digits, 30-second steps, what
/// Facebook's Code Generator and every authenticator app compute.
package struct TOTP: Sendable, Equatable {
    /// The shared secret (20 random bytes when Gatehouse makes one).
    package let secret: [UInt8]
    package let digits: Int
    package let period: Int

    package init(secret: [UInt8], digits: Int = 6, period: Int = 30) {
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// The time step that `date` falls in: whole periods since the Unix epoch.
    package func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code for one time step (HOTP with the step as counter), zero-padded to ``digits``.
    package func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - value.count)) + value
    }

    /// The code shown at `date`.
    package func code(at date: Date) -> String { code(step: step(at: date)) }

    /// The step `code` belongs to, looking one step either side of `date` (clock drift and typing time), and only
    /// at steps after `usedStep` (a code is good once: RFC 6238 §5.2). nil when it matches none.
    /// The comparison of each candidate is in constant time.
    package func matchingStep(_ code: String, at date: Date, after usedStep: Int64?, window: Int64 = 1) -> Int64? {
        let typed = code.filter { !$0.isWhitespace && $0 != "-" }
        guard typed.count == digits, typed.allSatisfy(\.isASCII), typed.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        var found: Int64?
        for candidate in (now - window)...(now + window) where candidate > (usedStep ?? Int64.min) {
            if constantTimeEquals(self.code(step: candidate), typed), found == nil { found = candidate }
        }
        return found
    }

    /// The `otpauth://totp/…` URI an authenticator app reads from the QR code (Google Authenticator's key format).
    package func provisioningURI(issuer: String, account: String) -> String {
        func escape(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        return
            "otpauth://totp/\(escape(issuer)):\(escape(account))?secret=\(Base32.encode(secret))&issuer=\(escape(issuer))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }

}
