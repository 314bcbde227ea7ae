import Foundation

/// `application/x-www-form-urlencoded`, the encoding of Facebook's query strings, token-endpoint
/// bodies and redirect fragments.
///
/// Written by hand rather than with `URLComponents` because Foundation leaves `+`, `&` and `=`
/// unescaped in query items, while Facebook writes `error_description=Permissions+error` and clients
/// such as social-core split on those characters.
package enum FormEncoding {
    /// Encodes pairs in order as `k=v&k2=v2`, writing space as `+` and percent-encoding every
    /// byte outside `A-Z a-z 0-9 - . _ ~` (uppercase hex).
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Escapes one key or value the way ``encode(_:)`` does.
    package static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                output += "%"
                output.unicodeScalars.append(upperHex[Int(byte >> 4)])
                output.unicodeScalars.append(upperHex[Int(byte & 0xF)])
            }
        }
        return output
    }

    /// Decodes `k=v&k2=v2` into pairs in order, keeping repeated keys.
    ///
    /// A segment without `=` is a key with an empty value and empty segments (`a=1&&b=2`) are
    /// skipped, as browsers do. Returns nil for a malformed `%` escape or bytes that are not UTF-8,
    /// so that a corrupted code or token is reported instead of being silently altered.
    package static func decode(_ text: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        // Split on the bytes `&` and `=`, as the WHATWG form parser does: ASCII never occurs inside a
        // multi-byte sequence, so every piece is valid text, and byte search skips grapheme breaking.
        for bytes in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let segment = Substring(bytes)
            let key: Substring
            let value: Substring
            if let equals = segment.utf8.firstIndex(of: UInt8(ascii: "=")) {
                key = segment[..<equals]
                value = segment[segment.utf8.index(after: equals)...]
            } else {
                key = segment
                value = ""
            }
            guard let decodedKey = unescape(key), let decodedValue = unescape(value) else { return nil }
            pairs.append((decodedKey, decodedValue))
        }
        return pairs
    }

    /// Reverses ``escape(_:)``: `+` becomes a space and `%XX` a byte; nil on a bad escape or
    /// invalid UTF-8.
    package static func unescape(_ text: some StringProtocol) -> String? {
        // Nothing to decode (most keys, ids and tokens): the text is already valid UTF-8.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        // Walked in place: copying the text into an array first was one more allocation per escaped value.
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validatingUTF8Bytes: bytes)
    }

    private static let upperHex: [UnicodeScalar] = Array("0123456789ABCDEF".unicodeScalars)
}
