/// One requested field from a Graph API `fields` parameter, such as `picture.type(large)` or
/// `friends.limit(5){name,picture{url}}`.
package struct FieldSelection: Sendable, Equatable {
    /// The field's name, e.g. `picture`.
    package var name: String
    /// `.key(value)` modifiers in the order written, e.g. `[("width", "200"), ("height", "200")]`.
    /// The parser keeps keys unique: when a key repeats, the first value wins, as `modifier(_:)` would see it.
    package var modifiers: [(String, String)]
    /// The nested selection from `{…}`; `nil` when the field had no braces, `[]` for an empty `{}`.
    package var subfields: [FieldSelection]?

    /// Creates a selection; mostly useful for building expected values and defaults.
    package init(name: String, modifiers: [(String, String)] = [], subfields: [FieldSelection]? = nil) {
        self.name = name
        self.modifiers = modifiers
        self.subfields = subfields
    }

    /// The value of the first modifier named `key`, e.g. `modifier("type")` → `"large"`.
    package func modifier(_ key: String) -> String? {
        modifiers.first { $0.0 == key }?.1
    }

    // Tuples cannot conform to Equatable, so the synthesised conformance is unavailable.
    package static func == (lhs: FieldSelection, rhs: FieldSelection) -> Bool {
        lhs.name == rhs.name
            && lhs.subfields == rhs.subfields
            && lhs.modifiers.count == rhs.modifiers.count
            && zip(lhs.modifiers, rhs.modifiers).allSatisfy { $0 == $1 }
    }
}

/// Why a `fields` parameter was rejected.
package enum FieldSelectionError: Error, Equatable, Sendable {
    /// The input exceeds `FieldSelectionParser.maxLength` UTF-8 bytes.
    case tooLong
    /// Braces nest deeper than `FieldSelectionParser.maxDepth`.
    case tooDeep
    /// Malformed input; the message follows Facebook's wording, position and input included.
    case syntax(String)

    /// Text suitable for the `message` of a Graph API error response.
    package var message: String {
        switch self {
        case .tooLong: "The fields parameter is longer than \(FieldSelectionParser.maxLength) characters."
        case .tooDeep: "The fields parameter nests deeper than \(FieldSelectionParser.maxDepth) levels."
        case .syntax(let message): message
        }
    }
}

/// Recursive-descent parser for Graph API `fields` parameters.
///
/// Grammar (whitespace around every token is ignored):
/// ```
/// list     := item? ("," item?)*            -- empty items (",,", trailing ",") are skipped
/// item     := name modifier* ("{" list "}")?
/// modifier := "." name "(" value ")"         -- value: any characters but ")", trimmed
/// name     := [A-Za-z0-9_]+
/// ```
/// A name repeated in one list keeps its first position; later occurrences are merged into it
/// (new modifier keys are appended, subfield lists are merged the same way), so
/// `picture.type(large),picture.width(200)` yields a single `picture` with both modifiers.
package enum FieldSelectionParser {
    /// Longest accepted input, in UTF-8 bytes (what actually arrives in the query string).
    package static let maxLength = 4096
    /// Deepest accepted brace nesting: `a{b{c}}` has depth 2.
    package static let maxDepth = 8

    /// Parses `raw`; empty or all-comma input yields `[]`.
    package static func parse(_ raw: String) throws(FieldSelectionError) -> [FieldSelection] {
        // Checked before parsing so the work (and the recursion) is bounded by the limit.
        guard raw.utf8.count <= maxLength else { throw .tooLong }
        if let plain = plainNames(raw) { return plain }
        return try parseFully(raw)
    }

    /// The recursive-descent parse, without the shortcut for plain names (the tests hold the two equal).
    static func parseFully(_ raw: String) throws(FieldSelectionError) -> [FieldSelection] {
        var parser = Parser(raw: raw)
        return try parser.list(depth: 0)
    }

    /// The common case, `id,name,email`: only names and commas. The grammar makes that a list of names with
    /// empty items skipped and repeats folded, so it needs no scalar array or recursion, which the full parser
    /// spends on every `/me`. Nil when anything else appears; the full parser then decides.
    static func plainNames(_ raw: String) -> [FieldSelection]? {
        var names: [FieldSelection] = []
        // A set, not a scan of `names`: 4,096 bytes of distinct names would make the scan quadratic.
        var seen = Set<String>()
        var start = raw.utf8.startIndex
        var index = start
        let end = raw.utf8.endIndex
        while true {
            let atEnd = index == end
            if atEnd || raw.utf8[index] == UInt8(ascii: ",") {
                if start < index {
                    let name = String(raw[start..<index])
                    if seen.insert(name).inserted { names.append(FieldSelection(name: name)) }
                }
                if atEnd { return names }
                index = raw.utf8.index(after: index)
                start = index
                continue
            }
            switch raw.utf8[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "_"):
                index = raw.utf8.index(after: index)
            default:
                return nil
            }
        }
    }
}

/// An ordered list of fields that folds repeated names into their first occurrence.
private struct FieldList {
    package var fields: [FieldSelection] = []
    private var positions: [String: Int] = [:]

    package mutating func add(_ field: FieldSelection) {
        guard let index = positions[field.name] else {
            positions[field.name] = fields.count
            fields.append(field)
            return
        }
        var existing = fields[index]
        for (key, value) in field.modifiers where existing.modifier(key) == nil {
            existing.modifiers.append((key, value))
        }
        if let more = field.subfields {
            var merged = FieldList()
            for sub in (existing.subfields ?? []) + more { merged.add(sub) }
            existing.subfields = merged.fields
        }
        fields[index] = existing
    }
}

private struct Parser {
    package let raw: String
    // Scalars rather than Characters: a combining mark must not glue itself onto a "," or ")".
    package let scalars: [Unicode.Scalar]
    package var index = 0

    package init(raw: String) {
        self.raw = raw
        self.scalars = Array(raw.unicodeScalars)
    }

    package mutating func list(depth: Int) throws(FieldSelectionError) -> [FieldSelection] {
        var list = FieldList()
        while true {
            skipWhitespace()
            guard let scalar = peek() else {
                if depth == 0 { return list.fields }
                throw syntaxError(expected: "\"}\"")
            }
            switch scalar {
            case ",":
                index += 1
                continue
            case "}":
                // Facebook reports a stray closing brace as wanting the end of the string.
                if depth == 0 { throw syntaxError(expected: "end of string") }
                index += 1
                return list.fields
            default:
                list.add(try item(depth: depth))
            }
            skipWhitespace()
            if let next = peek(), next != ",", next != "}" {
                throw syntaxError(expected: depth == 0 ? "\",\" or end of string" : "\",\" or \"}\"")
            }
        }
    }

    private mutating func item(depth: Int) throws(FieldSelectionError) -> FieldSelection {
        var field = FieldSelection(name: try name(describedAs: "field name"))
        skipWhitespace()
        while peek() == "." {
            index += 1
            skipWhitespace()
            let key = try name(describedAs: "modifier name")
            skipWhitespace()
            guard peek() == "(" else { throw syntaxError(expected: "\"(\"") }
            index += 1
            var start = index
            while let scalar = peek(), scalar != ")" { index += 1 }
            guard peek() == ")" else { throw syntaxError(expected: "\")\"") }
            var end = index
            index += 1
            while start < end, scalars[start].properties.isWhitespace { start += 1 }
            while end > start, scalars[end - 1].properties.isWhitespace { end -= 1 }
            if field.modifier(key) == nil {
                field.modifiers.append((key, String(String.UnicodeScalarView(scalars[start..<end]))))
            }
            skipWhitespace()
        }
        if peek() == "{" {
            guard depth < FieldSelectionParser.maxDepth else { throw .tooDeep }
            index += 1
            field.subfields = try list(depth: depth + 1)
        }
        return field
    }

    private mutating func name(describedAs what: String) throws(FieldSelectionError) -> String {
        let start = index
        while let scalar = peek(), Self.isNameScalar(scalar) { index += 1 }
        guard index > start else { throw syntaxError(expected: what) }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F: true
        default: false
        }
    }

    private func peek() -> Unicode.Scalar? {
        index < scalars.count ? scalars[index] : nil
    }

    private mutating func skipWhitespace() {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
    }

    /// Builds Facebook's message shape, e.g. `Syntax error "Expected "}" instead of end of string." at character 12: a{b`.
    private func syntaxError(expected: String) -> FieldSelectionError {
        let found = peek().map { "\"\($0)\"" } ?? "end of string"
        return .syntax("Syntax error \"Expected \(expected) instead of \(found).\" at character \(index): \(raw)")
    }
}
