import Foundation
import GatehouseProtocol

/// Turns `[String: Any]` request parameters into the strings that go on the wire.
enum GraphParameterEncoding {
    /// Facebook's fixed parameters, added to every call and to every batch entry's `relative_url`.
    static let fixedParameters: [String: String] = ["format": "json", "sdk": "ios", "include_headers": "false"]

    /// Strings as they are, booleans as `true`/`false`, numbers in decimal, arrays and dictionaries as
    /// JSON text (as Facebook's SDK serialises them), anything else by its description.
    static func string(for value: Any) -> String {
        switch value {
        case let s as String: return s
        case let b as Bool: return b ? "true" : "false"
        case let i as Int: return String(i)
        case let i as Int64: return String(i)
        case let d as Double: return d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case let v as JSONValue: return v.stringValue ?? v.serialized()
        case let u as URL: return u.absoluteString
        case is [Any], is [String: Any]: return JSONValue(foundationObject: value)?.serialized() ?? "\(value)"
        default: return "\(value)"
        }
    }

    /// Splits a query written into the path (`me?fields=id`) off and merges it over the parameters: it
    /// wins on conflicts, so `GraphRequest(graphPath: "me?fields=id")` is not undone by its default `fields=""`.
    static func components(graphPath: String, parameters: [String: Any]) -> (path: String, parameters: [String: String])
    {
        var result: [String: String] = [:]
        var path = graphPath
        for (k, v) in parameters { result[k] = string(for: v) }
        if let mark = graphPath.firstIndex(of: "?") {
            path = String(graphPath[..<mark])
            for (k, v) in FormEncoding.decode(String(graphPath[graphPath.index(after: mark)...])) ?? [] {
                result[k] = v
            }
        }
        if path.hasPrefix("/") { path.removeFirst() }
        return (path, result)
    }
}

extension JSONValue {
    /// The value as Foundation objects, the way Facebook's SDK hands results out: `[String: Any]`,
    /// `[Any]`, `String`, `Int`, `Double`, `Bool` and `NSNull`.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return Int(i)
        case .double(let d): return d
        case .string(let s): return s
        case .array(let items): return items.map(\.foundationObject)
        case .object(let object):
            var dictionary: [String: Any] = [:]
            for (k, v) in object.pairs { dictionary[k] = v.foundationObject }
            return dictionary
        }
    }

    /// Typed JSON for a Foundation object (strings, numbers, booleans, `NSNull`, arrays, dictionaries);
    /// nil for anything JSON cannot hold. Dictionary keys are sorted so the output is stable.
    public init?(foundationObject value: Any) {
        switch value {
        case is NSNull: self = .null
        case let v as JSONValue: self = v
        case let s as String: self = .string(s)
        case let b as Bool: self = .bool(b)
        case let i as Int: self = .int(Int64(i))
        case let i as Int64: self = .int(i)
        case let d as Double: self = .double(d)
        case let array as [Any]:
            var items: [JSONValue] = []
            for item in array {
                guard let v = JSONValue(foundationObject: item) else { return nil }
                items.append(v)
            }
            self = .array(items)
        case let dictionary as [String: Any]:
            var object = JSONObject()
            for key in dictionary.keys.sorted() {
                guard let v = JSONValue(foundationObject: dictionary[key]!) else { return nil }
                object.pairs.append((key, v))
            }
            self = .object(object)
        default: return nil
        }
    }
}
