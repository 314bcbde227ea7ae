import ArgumentParser
import Foundation
import GatehouseCore
import GatehouseProtocol

/// `gatehouse users create`'s profile options, one per field of the field table (`UserFieldValue.editable`):
/// `--middle-name Ada`, `--birthday 01/02/1999`, `--location "Lisbon, Portugal"` (a place by its name). Adding a
/// field to the table adds its option here.
enum ProfileOptions {
    /// The option for a field: its Graph name with dashes, `middle_name` → `--middle-name`.
    static func option(_ entry: UserFieldValue) -> String {
        "--" + entry.field.name.replacingOccurrences(of: "_", with: "-")
    }

    /// The help line: each option with the console's label for it.
    static var help: String {
        "Profile fields: "
            + UserFieldValue.editable.map { "\(option($0)) (\($0.title))" }.joined(separator: ", ")
            + ". A place is a name, e.g. \"Lisbon, Portugal\"."
    }

    /// Field name → value, from `--option value` or `--option=value` pairs.
    /// - Throws: ArgumentParser's usage error, as for its own options, for an unknown option or a missing value.
    static func read(_ arguments: [String]) throws -> [String: String] {
        let byOption = Dictionary(uniqueKeysWithValues: UserFieldValue.editable.map { (option($0), $0) })
        var out: [String: String] = [:]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let entry = byOption[String(parts[0])] else { throw ValidationError("Unknown option '\(argument)'") }
            if parts.count == 2 {
                out[entry.field.name] = String(parts[1])
            } else if let value = rest.popFirst() {
                out[entry.field.name] = value
            } else {
                throw ValidationError("Missing value for '\(argument)'")
            }
        }
        return out
    }
}
