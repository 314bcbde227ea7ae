import Foundation

extension JSONValue {
    /// Converts an `Encodable` value to JSON, keeping the order in which it encodes its keys.
    ///
    /// Foundation's `JSONEncoder` hashes keys into an arbitrary order on Linux, but Facebook's
    /// responses have a fixed order (`access_token`, `token_type`, `expires_in`), so response models
    /// go through this encoder and then ``serialized()``. `nil` optionals encoded with
    /// `encodeIfPresent` (the synthesized default) are omitted; `URL`s become their absolute string.
    public init(encoding value: some Encodable) throws {
        self = try OrderedEncoder.encode(value, codingPath: [])
    }

    /// Decodes a `Decodable` value from this JSON via Foundation's `JSONDecoder`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: serializedData())
    }
}

/// A node under construction: containers are references so nested containers handed out
/// earlier keep writing into the same tree.
private final class Node {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, Node)])
        case array([Node])
    }

    var content: Content = .empty

    var resolved: JSONValue {
        switch content {
        case .empty: return .object([:])
        case .value(let value): return value
        case .object(let members): return .object(JSONObject(members.map { ($0.0, $0.1.resolved) }))
        case .array(let elements): return .array(elements.map(\.resolved))
        }
    }

    func member(_ key: String) -> Node {
        if case .object(let members) = content, let existing = members.first(where: { $0.0 == key }) {
            return existing.1
        }
        let child = Node()
        if case .object(var members) = content {
            members.append((key, child))
            content = .object(members)
        }
        return child
    }

    func appendElement() -> Node {
        let child = Node()
        if case .array(var elements) = content {
            elements.append(child)
            content = .array(elements)
        }
        return child
    }
}

private struct OrderedEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONValue {
        let node = Node()
        try encode(value, into: node, codingPath: codingPath)
        return node.resolved
    }

    static func encode(_ value: some Encodable, into node: Node, codingPath: [any CodingKey]) throws {
        switch value {
        case let json as JSONValue: node.content = .value(json)
        case let object as JSONObject: node.content = .value(.object(object))
        case let url as URL: node.content = .value(.string(url.absoluteString))
        default: try value.encode(to: OrderedEncoder(node: node, codingPath: codingPath))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // Re-encoding a key replaces its value in place, as JSONEncoder does.
        let child = node.member(key.stringValue)
        child.content = .empty
        try OrderedEncoder.encode(value, into: child, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        OrderedEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        OrderedEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        OrderedEncoder(node: node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        OrderedEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendElement().content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try OrderedEncoder.encode(value, into: node.appendElement(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        OrderedEncoder(node: node.appendElement(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        OrderedEncoder(node: node.appendElement(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        OrderedEncoder(node: node.appendElement(), codingPath: codingPath)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(.double(value)) }
    mutating func encode(_ value: Float) throws { node.content = .value(.double(Double("\(value)") ?? Double(value))) }
    mutating func encode(_ value: Int) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { node.content = .value(.int(value)) }
    mutating func encode(_ value: UInt) throws { node.content = .value(Self.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { node.content = .value(Self.unsigned(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try OrderedEncoder.encode(value, into: node, codingPath: codingPath)
    }

    private static func unsigned(_ value: UInt64) -> JSONValue {
        Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))
    }
}
