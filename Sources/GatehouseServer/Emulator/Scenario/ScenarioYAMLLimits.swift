import Foundation
import Yams

/// What a scenario file may cost to read, checked before and right after Yams composes it.
///
/// YAML aliases (`*name`) repeat what an anchor (`&name`) names without repeating its text, so a few kilobytes
/// can stand for billions of nodes ("billion laughs"). Yams shares the repeated nodes while composing, but hashes
/// mapping keys to find duplicates (an alias used as a key is hashed whole) and the parser then walks the values,
/// so expansion would cost time in proportion to the expanded size. Hand-written scenario files never need many
/// aliases, so the file's size and its aliases are bounded before composing (which bounds what a key's hash can
/// cost), and its expanded size right after (which bounds every later walk).
enum ScenarioYAMLLimits {
    /// The most YAML text a scenario may have (pictures travel separately): far above any hand-written file.
    static let maxBytes = 1 << 20
    /// The most aliases a file may use. Counted generously (see ``aliasCount(_:)``), so a few stray `*` at the
    /// start of a block-scalar line never make a good file fail.
    static let maxAliases = 10
    /// The most nodes the composed document may hold with every alias expanded.
    static let maxExpandedNodes = 250_000

    /// The first limit `yaml` breaks, as a message for the whole file; nil when it may be composed.
    static func refusalBeforeComposing(_ yaml: String) -> String? {
        let bytes = yaml.utf8.count
        if bytes > maxBytes {
            return "the file is \(bytes) bytes; a scenario may be at most \(maxBytes) bytes (1 MiB)"
        }
        if aliasCount(yaml) > maxAliases {
            return
                "the file uses more than \(maxAliases) YAML aliases (*name); a scenario may use at most \(maxAliases)"
        }
        return nil
    }

    /// A message when `root`, with every alias expanded, holds more than ``maxExpandedNodes`` nodes. Stops
    /// counting at the limit, so the check costs at most that many steps whatever the document expands to.
    static func refusalAfterComposing(_ root: Node) -> String? {
        // Nodes are counted as they are pushed, a whole container's children at once, so neither the steps nor
        // the stack ever exceed the limit.
        var remaining = maxExpandedNodes - 1
        var stack: [Node] = [root]
        while let node = stack.popLast() {
            let children: Int
            switch node {
            case .mapping(let mapping): children = 2 * mapping.count
            case .sequence(let sequence): children = sequence.count
            default: continue
            }
            remaining -= children
            if remaining < 0 {
                return
                    "the file expands to more than \(maxExpandedNodes) YAML nodes once its aliases (*name) are repeated"
            }
            if case .mapping(let mapping) = node {
                for pair in mapping { stack.append(pair.key); stack.append(pair.value) }
            } else if case .sequence(let sequence) = node {
                stack.append(contentsOf: sequence)
            }
        }
        return nil
    }

    /// The `*` that may start an alias: at a line's start after indentation, or after `- `, `? `, `: `, `[`, `{`
    /// or `,`. Never fewer than the aliases libYAML sees (a plain scalar cannot start with `*`, and one in the
    /// middle of a value is not counted); a `*` inside quotes or a block scalar in such a place is counted too.
    static func aliasCount(_ yaml: String) -> Int {
        var count = 0
        var previous: UInt8 = UInt8(ascii: "\n")  // the last byte that was not a space or tab
        for byte in yaml.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): continue
            case UInt8(ascii: "*"):
                if Self.opensNode(previous) { count += 1 }
            default: break
            }
            previous = byte
        }
        return count
    }

    private static func opensNode(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"),
            UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","):
            return true
        default: return false
        }
    }
}
