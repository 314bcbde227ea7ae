import Foundation

/// The URL-safe base64 alphabet of RFC 4648 §5, as used by signed_request, PKCE and JWTs.
///
/// Facebook strips the `=` padding when writing and clients differ on whether they pad when
/// reading, so encoding never pads and decoding accepts both forms.
package enum Base64URL {
    /// Encodes bytes with `-` and `_` and without padding.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(
            text.unicodeScalars.compactMap { scalar -> Character? in
                switch scalar {
                case "+": return "-"
                case "/": return "_"
                case "=": return nil
                default: return Character(scalar)
                }
            })
        return text
    }

    /// Encodes the UTF-8 bytes of a string.
    package static func encode(_ text: String) -> String {
        encode(Array(text.utf8))
    }

    /// Decodes padded or unpadded input; nil when it holds characters outside the URL-safe
    /// alphabet (including `+` and `/`, which would mean the sender used the wrong alphabet),
    /// misplaced or excess padding, or an impossible length.
    package static func decode(_ text: String) -> Data? {
        var body = Substring(text)
        var paddingCount = 0
        while body.hasSuffix("=") {
            body.removeLast()
            paddingCount += 1
        }
        guard paddingCount <= 2 else { return nil }
        if paddingCount > 0, text.utf8.count % 4 != 0 { return nil }

        var standard = ""
        standard.reserveCapacity(body.utf8.count + 3)
        for scalar in body.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard += "+"
            case "_": standard += "/"
            default: return nil
            }
        }
        let remainder = standard.utf8.count % 4
        guard remainder != 1 else { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: standard)
    }
}
