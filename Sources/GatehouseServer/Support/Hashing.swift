import Crypto
import Foundation

/// One-way hashes for secrets the server must recognise but never store (tokens, codes, session cookies).
public enum SecretHash {
    /// Lowercase hex SHA-256 of the UTF-8 text.
    public static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Compares two strings in time independent of where they differ.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<x.count { diff |= x[i] ^ y[i] }
    return diff == 0
}
