import Crypto
import Foundation

/// One-way hashes for secrets the server must recognise but never store (tokens, codes, session cookies).
package enum SecretHash {
    /// Lowercase hex SHA-256 of the UTF-8 text.
    package static func sha256Hex(_ text: String) -> String {
        // On every authenticated request (token lookup): a table-driven hex encoding, since
        // `String(format:)` per byte costs more than the hash itself on Linux.
        var text = text
        let digest = text.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return String(unsafeUninitializedCapacity: SHA256.byteCount * 2) { out in
            var i = 0
            for byte in digest {
                out[i] = hexDigits[Int(byte >> 4)]
                out[i + 1] = hexDigits[Int(byte & 0x0F)]
                i += 2
            }
            return i
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// Compares two strings in time independent of where they differ.
package func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<x.count { diff |= x[i] ^ y[i] }
    return diff == 0
}
