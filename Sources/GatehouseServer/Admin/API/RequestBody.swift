import Foundation
import GatehouseProtocol

/// A v1 request body, read field by field: each accessor throws a validation ``Problem`` naming the field, so a
/// handler reads and checks the whole body before it writes anything (a refused request changes nothing).
struct RequestBody {
    let object: JSONObject
    private var read: Set<String> = []

    init(_ value: JSONValue) throws {
        guard case .object(let object) = value else {
            throw Problem.validation("body", "the body must be a JSON object")
        }
        self.object = object
    }

    /// Whether the body carries `field` at all (null counts: PATCH uses null to clear).
    func has(_ field: String) -> Bool { object[field] != nil }

    mutating func string(_ field: String, max: Int = 1000) throws -> String? {
        read.insert(field)
        guard let value = object[field], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw Problem.validation(field, "\(field) must be a string") }
        // Counted as JSON Schema's maxLength counts: Unicode code points, not grapheme clusters.
        guard text.unicodeScalars.count <= max else {
            throw Problem.validation(field, "\(field) must be at most \(max) characters")
        }
        return text
    }

    mutating func requiredString(_ field: String, max: Int = 1000) throws -> String {
        guard let text = try string(field, max: max)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
        else {
            throw Problem.validation(field, "\(field) is required")
        }
        return text
    }

    mutating func bool(_ field: String) throws -> Bool? {
        read.insert(field)
        guard let value = object[field], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw Problem.validation(field, "\(field) must be true or false") }
        return flag
    }

    mutating func int(_ field: String, in range: ClosedRange<Int64>) throws -> Int64? {
        read.insert(field)
        guard let value = object[field], !value.isNull else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            throw Problem.validation(
                field, "\(field) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    mutating func strings(_ field: String, maxCount: Int = 200) throws -> [String]? {
        read.insert(field)
        guard let value = object[field], !value.isNull else { return nil }
        guard let array = value.arrayValue else {
            throw Problem.validation(field, "\(field) must be an array of strings")
        }
        guard array.count <= maxCount else {
            throw Problem.validation(field, "\(field) holds at most \(maxCount) items")
        }
        return try array.map { item in
            guard let text = item.stringValue, text.count <= 2000 else {
                throw Problem.validation(field, "\(field) must be an array of strings")
            }
            return text
        }
    }

    /// Known permission names, each once, in the order given.
    mutating func permissions(_ field: String) throws -> [String]? {
        guard let names = try strings(field) else { return nil }
        var seen = Set<String>()
        let unique = names.filter { seen.insert($0).inserted }
        if let unknown = unique.first(where: { !Permission.isKnown($0) }) {
            throw Problem.validation(field, "unknown permission \(GraphError.echo(unknown))")
        }
        return unique
    }

    mutating func value(_ field: String) -> JSONValue? {
        read.insert(field)
        return object[field]
    }

    /// Refuses fields no accessor asked for, so a misspelt field is an error rather than silently ignored.
    /// - Parameter prefix: the path of a nested object (`scenario.`), so the problem names the field in full.
    /// - Parameter known: fields read without the accessors.
    func finish(prefix: String = "", known: Set<String> = []) throws {
        if let unknown = object.keys.first(where: { !read.contains($0) && !known.contains($0) }) {
            throw Problem.validation(prefix + unknown, "unknown field \(GraphError.echo(prefix + unknown))")
        }
    }
}
