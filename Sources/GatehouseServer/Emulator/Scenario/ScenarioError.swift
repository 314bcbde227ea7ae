import GatehouseCore
import Foundation
import Yams

/// One problem with a scenario file, pointing at where it is: `shop.yaml:12:5: people.alice.email: expected a string`.
package struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's name as given (or `scenario` when it came without one).
    package var file: String
    package var location: ScenarioLocation?
    /// Where in the document, e.g. `people.alice.email` or `tokens[2]`.
    package var path: String
    package var message: String

    package init(file: String, location: ScenarioLocation?, path: String, message: String) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
    }

    package var description: String {
        let place = location.map { "\(file):\($0.line):\($0.column)" } ?? file
        return path.isEmpty ? "\(place): \(message)" : "\(place): \(path): \(message)"
    }
}

/// Every problem found in a file; nothing is applied while there is one.
package struct ScenarioErrors: Error, Sendable, Equatable, CustomStringConvertible {
    package var errors: [ScenarioError]
    package init(_ errors: [ScenarioError]) { self.errors = errors }
    package var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Reads typed values out of Yams nodes, recording a located error for anything of the wrong shape instead of
/// stopping at the first one, so a person fixing a file sees all its problems at once.
struct ScenarioReader {
    let file: String
    var errors: [ScenarioError] = []

    static func location(_ node: Node) -> ScenarioLocation? {
        node.mark.map { ScenarioLocation(line: $0.line, column: $0.column) }
    }

    /// The most problems reported for one file. A file's lists are as long as its size allows, and some checks
    /// look back through the problems so far, so an unbounded list of them made a bad file quadratic (issue 27,
    /// finding 2); a person fixes the first hundred before the rest matter.
    static let maximumErrors = 100

    mutating func fail(_ node: Node?, _ path: String, _ message: String) {
        fail(node.flatMap(Self.location), path, message)
    }

    mutating func fail(_ location: ScenarioLocation?, _ path: String, _ message: String) {
        if errors.count < Self.maximumErrors {
            errors.append(ScenarioError(file: file, location: location, path: path, message: message))
        } else if errors.count == Self.maximumErrors {
            errors.append(
                ScenarioError(
                    file: file, location: nil, path: "",
                    message: "more than \(Self.maximumErrors) problems; the rest are not listed"))
        }
    }

    static func isNull(_ node: Node) -> Bool {
        if case .scalar(let scalar) = node {
            return node.tag.rawValue == Tag.Name.null.rawValue
                || (scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string))
        }
        return false
    }

    /// A mapping's entries in file order, refusing keys outside `allowed` (a typo must not be silently ignored).
    mutating func mapping(_ node: Node, _ path: String, allowed: Set<String>? = nil) -> [(
        key: String, keyNode: Node, value: Node
    )]? {
        guard case .mapping(let mapping) = node else {
            fail(node, path, "expected a mapping (key: value lines)")
            return nil
        }
        var entries: [(key: String, keyNode: Node, value: Node)] = []
        var seen = Set<String>()
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                fail(keyNode, path, "keys must be plain words")
                continue
            }
            let key = scalar.string
            if let allowed, !allowed.contains(key) {
                fail(
                    keyNode, join(path, key), "unknown key; expected one of " + allowed.sorted().joined(separator: ", ")
                )
                continue
            }
            guard seen.insert(key).inserted else {
                fail(keyNode, join(path, key), "appears twice")
                continue
            }
            entries.append((key, keyNode, value))
        }
        return entries
    }

    mutating func sequence(_ node: Node, _ path: String) -> [Node]? {
        guard case .sequence(let sequence) = node else {
            fail(node, path, "expected a list")
            return nil
        }
        return Array(sequence)
    }

    /// Any non-null scalar as text: `id: 1234567890123456` is an integer to YAML but an id here.
    mutating func string(_ node: Node, _ path: String) -> String? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            fail(node, path, "expected a string")
            return nil
        }
        return scalar.string
    }

    mutating func strings(_ node: Node, _ path: String) -> [String]? {
        guard let items = sequence(node, path) else { return nil }
        var values: [String] = []
        for (i, item) in items.enumerated() {
            if let value = string(item, "\(path)[\(i)]") { values.append(value) }
        }
        return values
    }

    mutating func bool(_ node: Node, _ path: String) -> Bool? {
        if case .scalar(let scalar) = node {
            switch scalar.string.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        fail(node, path, "expected true or false")
        return nil
    }

    mutating func int(_ node: Node, _ path: String) -> Int? {
        if case .scalar(let scalar) = node, let value = Int(scalar.string) { return value }
        fail(node, path, "expected a whole number")
        return nil
    }

    func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
}
