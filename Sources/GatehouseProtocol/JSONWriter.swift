import Foundation

extension JSONValue {
    /// Compact JSON text in member order.
    ///
    /// Non-ASCII stays raw UTF-8 and `/` is not escaped, so `picture.data.url` values read the same
    /// in logs as in the browser; only `"`, `\` and control characters are escaped. Integral doubles
    /// keep their `.0` (Swift's shortest round-trip form), which is why integers have their own case.
    public func serialized() -> String {
        var output = ""
        // One allocation for a typical Graph reply (`debug_token`'s is about 300 bytes) instead of one per doubling.
        output.reserveCapacity(512)
        JSONWriter.write(self, into: &output)
        return output
    }

    /// ``serialized()`` as UTF-8 bytes, ready for a response body.
    public func serializedData() -> Data {
        Data(serialized().utf8)
    }
}

/// Writes compact JSON; kept separate so the hot path appends into one buffer.
enum JSONWriter {
    static func write(_ value: JSONValue, into output: inout String) {
        switch value {
        case .null:
            output += "null"
        case .bool(let flag):
            output += flag ? "true" : "false"
        case .int(let number):
            output += String(number)
        case .double(let number):
            // JSON has no NaN or infinity; `null` is what JavaScript's JSON.stringify writes too.
            output += number.isFinite ? number.description : "null"
        case .string(let text):
            writeString(text, into: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element, into: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, (key, member)) in object.pairs.enumerated() {
                if index > 0 { output += "," }
                writeString(key, into: &output)
                output += ":"
                write(member, into: &output)
            }
            output += "}"
        }
    }

    static func writeString(_ text: String, into output: inout String) {
        output += "\""
        // Most strings (ids, names, tokens) need no escape: append them whole instead of scalar by scalar.
        // Only these bytes are ever escaped, and none of them occurs inside a multi-byte UTF-8 sequence.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}":
                output += "\\u00"
                output += hexDigit(scalar.value >> 4)
                output += hexDigit(scalar.value & 0xF)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    private static func hexDigit(_ nibble: UInt32) -> String {
        String(UnicodeScalar(UInt8(nibble < 10 ? 48 + nibble : 87 + nibble)))
    }
}
