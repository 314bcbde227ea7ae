import Foundation

/// Recovery codes: ten one-time codes shown once when the second factor is turned on, for a lost phone.
/// Stored only as SHA-256 hashes; `abcd-efgh-jk` and `ABCDEFGHJK` are the same code.
package enum RecoveryCodes {
    /// Letters and digits that are hard to mistake for each other when copied by hand (no 0/O, 1/I/L).
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    /// `count` fresh codes shaped `XXXX-XXXX-XX`, drawn from `randomByte`.
    package static func make(count: Int = 10, randomByte: () -> UInt8) -> [String] {
        (0..<count).map { _ in
            var text = ""
            // Rejection sampling keeps every character equally likely.
            while text.count < 10 {
                let byte = randomByte()
                if Int(byte) < 256 - 256 % alphabet.count { text.append(alphabet[Int(byte) % alphabet.count]) }
            }
            let chars = Array(text)
            return String(chars[0..<4]) + "-" + String(chars[4..<8]) + "-" + String(chars[8..<10])
        }
    }

    /// The code as typed, without separators and in capitals; nil unless it has the shape of a recovery code.
    package static func normalized(_ typed: String) -> String? {
        let text = typed.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        guard text.count == 10, text.allSatisfy(alphabet.contains) else { return nil }
        return text
    }

    /// The stored form of a code (normalized, then SHA-256).
    package static func hash(_ code: String) -> String? {
        normalized(code).map { SecretHash.sha256Hex("recovery:" + $0) }
    }
}
