import GatehouseCore
import Foundation
import GatehouseProtocol
import Yams

/// Turns a scenario file's YAML into a ``Scenario``, or into every problem it has, each with line and column.
///
/// Parsing is pure apart from `readFile`, which fetches the pictures the file names (the CLI passes a reader that
/// also collects them, to send them to a remote server with the YAML).
package struct ScenarioParser {
    /// The name errors are reported under.
    package var file: String
    /// Reads a path written in the file (relative to the file's folder); nil when it cannot be read.
    package var readFile: (String) -> Data?

    package init(file: String, readFile: @escaping (String) -> Data?) {
        self.file = file
        self.readFile = readFile
    }

    /// A parser for a file on disk: pictures are read relative to the file's folder.
    package static func reading(path: String) -> ScenarioParser {
        let folder = (path as NSString).deletingLastPathComponent
        return ScenarioParser(file: path) { relative in
            FileManager.default.contents(
                atPath: relative.hasPrefix("/") ? relative : (folder as NSString).appendingPathComponent(relative))
        }
    }

    static let topKeys: Set<String> = ["apps", "people", "friendships", "grants", "tokens", "errors", "clock_offset"]
    static let appKeys: Set<String> = [
        "id", "name", "secret", "client_token", "redirect_uris", "approved_permissions", "require_app_secret",
        "require_pkce",
        "roles", "callbacks", "js_sdk_domains", "subscriptions",
    ]
    static let personKeys = Set<String>([
        "id", "email", "password", "first_name", "last_name", "picture", "test_user_of", "scoped_ids",
        "account_state", "two_factor_secret",
    ]).union(UserFieldValue.editable.map(\.field.name))

    /// The scenario.
    /// - Throws: ``ScenarioErrors`` listing every problem (syntax, shape, values and references).
    package func parse(_ yaml: String) throws -> Scenario {
        var reader = ScenarioReader(file: file)
        func refuse(_ message: String) -> ScenarioErrors {
            ScenarioErrors([ScenarioError(file: file, location: nil, path: "", message: message)])
        }
        // Size and aliases are bounded before Yams sees the text, the expanded size right after (billion laughs).
        if let message = ScenarioYAMLLimits.refusalBeforeComposing(yaml) { throw refuse(message) }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ScenarioErrors([Self.syntaxError(error, file: file)])
        }
        if let root, let message = ScenarioYAMLLimits.refusalAfterComposing(root) { throw refuse(message) }
        var scenario = Scenario()
        guard let root, !ScenarioReader.isNull(root) else { return scenario }
        guard let top = reader.mapping(root, "", allowed: Self.topKeys) else { throw ScenarioErrors(reader.errors) }
        // Apps and people first, whatever the file's order: the other sections refer to them.
        let ordered = top.sorted { Self.rank($0.key) < Self.rank($1.key) }
        for (key, keyNode, value) in ordered where !ScenarioReader.isNull(value) {
            switch key {
            case "apps": scenario.apps = apps(value, &reader)
            case "people": scenario.people = people(value, &reader)
            case "friendships": scenario.friendships = friendships(value, &reader)
            case "grants": scenario.grants = grants(value, &reader)
            case "tokens": scenario.tokens = tokens(value, &reader)
            case "errors": scenario.errors = injectedErrors(value, &reader)
            default:
                scenario.clockOffsetAt = ScenarioReader.location(keyNode)
                if let text = reader.string(value, key) {
                    if let seconds = DurationParser.seconds(text), seconds >= 0, seconds < 100 * 365 * 86400 {
                        scenario.clockOffsetSeconds = Int64(seconds)
                    } else {
                        reader.fail(value, key, "expected a duration such as 61d, 12h, 90m or 3600 (forward only)")
                    }
                }
            }
        }
        checkReferences(scenario, &reader)
        guard reader.errors.isEmpty else { throw ScenarioErrors(reader.errors.sorted(by: Self.inFileOrder)) }
        return scenario
    }

    private static func rank(_ key: String) -> Int { ["apps": 0, "people": 1][key] ?? 2 }

    static func inFileOrder(_ a: ScenarioError, _ b: ScenarioError) -> Bool {
        let x = a.location ?? ScenarioLocation(line: .max, column: 0),
            y = b.location ?? ScenarioLocation(line: .max, column: 0)
        return (x.line, x.column) < (y.line, y.column)
    }

    /// A YAML syntax error at the position libYAML reports.
    static func syntaxError(_ error: any Error, file: String) -> ScenarioError {
        func at(_ mark: Mark) -> ScenarioLocation { ScenarioLocation(line: mark.line, column: mark.column) }
        switch error as? YamlError {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            // libYAML's context names where the broken construct began, which is often the line to fix.
            let begun = context.map { ", \($0.text) that starts at \($0.mark.line):\($0.mark.column)" } ?? ""
            return ScenarioError(
                file: file, location: at(mark), path: "", message: "not valid YAML: \(problem)\(begun)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams marks the first occurrence; the later one is the likelier mistake, but it is not reported.
            return ScenarioError(
                file: file, location: at(context.mark), path: "",
                message: "\(duplicates.joined(separator: ", ")) appears more than once in this mapping (first here)")
        default:
            return ScenarioError(file: file, location: nil, path: "", message: "not valid YAML: \(error)")
        }
    }

    /// Keys name apps and people inside the file, so they are kept to what reads well in a reference.
    static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.count <= 64
            && key.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "_" || $0 == "-"
            }
    }

    static func isDigits(_ text: String, _ range: ClosedRange<Int>) -> Bool {
        range.contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber } && !text.hasPrefix("0")
    }

    static func isWebURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil else { return false }
        return scheme == "https" || scheme == "http"
    }

    func permissions(_ node: Node, _ path: String, _ reader: inout ScenarioReader) -> [String] {
        var names: [String] = [], seen = Set<String>()
        for (i, item) in (reader.sequence(node, path) ?? []).enumerated() {
            guard let name = reader.string(item, "\(path)[\(i)]") else { continue }
            if !Permission.isKnown(name) { reader.fail(item, "\(path)[\(i)]", "unknown permission \"\(name)\"") }
            if !seen.insert(name).inserted { reader.fail(item, "\(path)[\(i)]", "\"\(name)\" is listed twice") }
            names.append(name)
        }
        return names
    }
}
