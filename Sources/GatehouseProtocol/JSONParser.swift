import Foundation

/// Why a JSON document was rejected, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset into the input.
    public var offset: Int
    /// A short human-readable reason.
    public var reason: String

    /// Creates an error at `offset`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "reason at byte N", for logs.
    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Parses strict RFC 8259 JSON, keeping object key order.
    ///
    /// A hand-written parser is used because Foundation on Linux reports `true` and `1` alike as
    /// `NSNumber` and its dictionaries drop key order. Duplicate keys keep their first position and
    /// the last value, as JavaScript does. Nesting is capped so hostile batch bodies cannot exhaust the stack.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data))
        return try parser.parseDocument()
    }

    /// Parses JSON text; see ``parse(_:)``.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Data(text.utf8))
    }
}

struct JSONParser {
    static let maximumDepth = 512

    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("Unexpected data after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count,
            bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw fail("Invalid literal") }
        index += expected.count
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw fail("Unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            return try nested { (parser: inout JSONParser) throws(JSONParseError) in try parser.parseObject() }
        case UInt8(ascii: "["):
            return try nested { (parser: inout JSONParser) throws(JSONParseError) in try parser.parseArray() }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("Unexpected character")
        }
    }

    private mutating func nested(
        _ body: (inout JSONParser) throws(JSONParseError) -> JSONValue
    ) throws(JSONParseError) -> JSONValue {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("Nesting too deep") }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        index += 1
        var object = JSONObject()
        var positions: [String: Int] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("Expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("Expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if let position = positions[key] {
                object.pairs[position].1 = value
            } else {
                positions[key] = object.pairs.count
                object.pairs.append((key, value))
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(object)
            default: throw fail("Expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw fail("Expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if try consumeDigits() == 0 {
            throw fail("Expected a digit")
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard try consumeDigits() > 0 else { throw fail("Expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try consumeDigits() > 0 else { throw fail("Expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let exact = Int64(text) { return .int(exact) }
        guard let number = Double(text) else { throw JSONParseError(offset: start, reason: "Invalid number") }
        return .double(number)
    }

    private mutating func consumeDigits() throws(JSONParseError) -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let start = index
        index += 1
        var buffer: [UInt8] = []
        while true {
            guard let byte = current else { throw fail("Unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validatingUTF8Bytes: buffer) else {
                    throw JSONParseError(offset: start, reason: "Invalid UTF-8 in string")
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0x00..<0x20:
                throw fail("Unescaped control character in string")
            default:
                buffer.append(byte)
            }
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw fail("Unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = try parseHex4()
            if (0xD800..<0xDC00).contains(scalarValue) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail("Unpaired surrogate") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw fail("Unpaired surrogate") }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("Unpaired surrogate") }
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw fail("Invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("Truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexValue(bytes[index]) else { throw fail("Invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}

/// The value of one ASCII hex digit, or nil; shared by the JSON and form decoders.
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension String {
    /// Decodes UTF-8, failing on malformed bytes instead of substituting U+FFFD as
    /// `String(decoding:as:)` does, so tampered input is rejected rather than silently altered.
    init?(validatingUTF8Bytes bytes: some Collection<UInt8>) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
