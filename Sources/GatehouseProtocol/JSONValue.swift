import Foundation

/// A JSON document whose objects keep their key order.
///
/// Facebook-compatible clients compare response bodies byte for byte in tests, and Foundation's
/// dictionaries lose key order, so the wire format is modelled here instead of with `[String: Any]`.
/// Integers and doubles are separate cases because Graph API ids and timestamps must round-trip
/// exactly, and booleans are their own case because `true` and `1` mean different things to clients.
public indirect enum JSONValue: Sendable, Equatable {
    /// JSON `null`.
    case null
    /// JSON `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number; non-finite values serialize as `null` because JSON cannot express them.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object with ordered keys.
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// The string payload, or nil for any other case; no coercion, so `1` is not `"1"`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer payload, also accepting an integral double since some clients send `5.0`.
    public var intValue: Int64? {
        switch self {
        case .int(let value):
            return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default:
            return nil
        }
    }

    /// The numeric payload as a double, for either number case.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean payload; numbers are not treated as booleans.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`, which differs from a missing key in Graph API responses.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, or nil when this is not an object or lacks the key.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index`, or nil when this is not an array or the index is out of range.
    public subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates `.string` from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates `.int` from a literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates `.double` from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates `.bool` from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates `.array` from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates `.object` from a literal, keeping the literal's key order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `.null`.
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Codable

extension JSONValue: Codable {
    /// Decodes any JSON value; object key order follows the decoder, which for Foundation's
    /// `JSONDecoder` is not the document order. Use ``parse(_:)`` when order matters.
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: JSONObject.MemberKey.self) {
            var object = JSONObject()
            for key in keyed.allKeys {
                object.pairs.append((key.stringValue, try keyed.decode(JSONValue.self, forKey: key)))
            }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd {
                elements.append(try unkeyed.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Encodes the value; object keys are emitted in order, which encoders may or may not keep.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .int(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .double(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .object(let object):
            try object.encode(to: encoder)
        }
    }
}
