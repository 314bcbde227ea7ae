import Foundation

/// RFC 4648 base32 (the `A`–`Z`, `2`–`7` alphabet), as authenticator apps read a TOTP secret.
package enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The encoding of `bytes`, without `=` padding when `padded` is false (what `otpauth://` URIs carry).
    package static func encode(_ bytes: [UInt8], padded: Bool = false) -> String {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        if padded { while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a base32 text; case, spaces, hyphens and padding are ignored (people type secrets in groups).
    /// nil for any other character.
    package static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for scalar in text.uppercased().unicodeScalars {
            if scalar == " " || scalar == "-" || scalar == "=" { continue }
            guard scalar.isASCII, let index = alphabet.firstIndex(of: UInt8(scalar.value)) else { return nil }
            buffer = ((buffer << 5) | index) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
