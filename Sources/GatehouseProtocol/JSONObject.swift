import Foundation

/// A JSON object as an ordered list of members.
///
/// Order is kept because Graph API responses are compared byte for byte against Facebook's, whose
/// field order follows the request; a dictionary would shuffle it on every run.
public struct JSONObject: Sendable, Equatable {
    /// The members in wire order; keys are unique when built through the subscript or the parser.
    public var pairs: [(String, JSONValue)]

    /// Creates an object from members in the given order.
    public init(_ pairs: [(String, JSONValue)] = []) {
        self.pairs = pairs
    }

    /// The keys in wire order.
    public var keys: [String] { pairs.map(\.0) }

    /// The number of members.
    public var count: Int { pairs.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { pairs.isEmpty }

    /// The value for `key`. Setting replaces the member in place, so re-setting a field does not
    /// move it to the end; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { pairs.first(where: { $0.0 == key })?.1 }
        set {
            let index = pairs.firstIndex(where: { $0.0 == key })
            switch (index, newValue) {
            case (let index?, let value?): pairs[index].1 = value
            case (let index?, nil): pairs.remove(at: index)
            case (nil, let value?): pairs.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// Removes `key` and returns its old value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = pairs.firstIndex(where: { $0.0 == key }) else { return nil }
        return pairs.remove(at: index).1
    }

    /// Compact JSON for this object; see ``JSONValue/serialized()``.
    public func serialized() -> String {
        JSONValue.object(self).serialized()
    }

    /// Order matters: two objects with the same members in another order serialize differently,
    /// and serialized bytes are what this project compares.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}

extension JSONObject: Codable {
    /// A coding key for arbitrary member names.
    struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    /// Decodes an object; member order follows the decoder (see ``JSONValue/init(from:)``).
    public init(from decoder: any Decoder) throws {
        guard case .object(let object) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                JSONObject.self,
                .init(codingPath: decoder.codingPath, debugDescription: "Expected a JSON object.")
            )
        }
        self = object
    }

    /// Encodes members in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (key, value) in pairs {
            try container.encode(value, forKey: MemberKey(stringValue: key))
        }
    }
}
