import Testing
@testable import GatehouseCore

@Suite("Graph fields parser")
struct FieldSelectionTests {
    private func parse(_ raw: String) throws(FieldSelectionError) -> [FieldSelection] {
        try FieldSelectionParser.parse(raw)
    }

    private func syntax(_ detail: String, at position: Int, in raw: String) -> FieldSelectionError {
        .syntax("Syntax error \"Expected \(detail).\" at character \(position): \(raw)")
    }

    @Test func emptyAndCommaOnlyInputYieldNothing() throws {
        #expect(try parse("") == [])
        #expect(try parse("   ") == [])
        #expect(try parse(",, ,") == [])
    }

    @Test func plainNames() throws {
        #expect(
            try parse("id,name,email,first_name,field2")
                == ["id", "name", "email", "first_name", "field2"].map { FieldSelection(name: $0) })
    }

    @Test func facebookExampleFromTheDocs() throws {
        let raw = "id,name,picture.type(large),picture.width(200).height(200),friends.limit(5){name,picture{url}},email"
        let expected = [
            FieldSelection(name: "id"),
            FieldSelection(name: "name"),
            FieldSelection(name: "picture", modifiers: [("type", "large"), ("width", "200"), ("height", "200")]),
            FieldSelection(
                name: "friends", modifiers: [("limit", "5")],
                subfields: [
                    FieldSelection(name: "name"),
                    FieldSelection(name: "picture", subfields: [FieldSelection(name: "url")]),
                ]
            ),
            FieldSelection(name: "email"),
        ]
        let fields = try parse(raw)
        #expect(fields == expected)
        #expect(fields[2].modifier("width") == "200")
        #expect(fields[2].modifier("type") == "large")
        #expect(fields[2].modifier("size") == nil)
        #expect(fields[3].subfields?[1].subfields == [FieldSelection(name: "url")])
        #expect(fields[0].subfields == nil)
    }

    @Test func chainedModifiersKeepTheirOrder() throws {
        let fields = try parse("picture.width(200).height(100)")
        #expect(fields.count == 1)
        #expect(fields[0].modifiers.map(\.0) == ["width", "height"])
        #expect(fields[0].modifiers.map(\.1) == ["200", "100"])
    }

    @Test func whitespaceAroundTokensIsIgnored() throws {
        let fields = try parse("  id ,\tpicture . type ( large ) { url , height } ,\nname  ")
        #expect(
            fields == [
                FieldSelection(name: "id"),
                FieldSelection(
                    name: "picture", modifiers: [("type", "large")],
                    subfields: [FieldSelection(name: "url"), FieldSelection(name: "height")]),
                FieldSelection(name: "name"),
            ])
    }

    @Test func emptyItemsAreSkipped() throws {
        let names = [FieldSelection(name: "id"), FieldSelection(name: "name")]
        #expect(try parse("id,,name") == names)
        #expect(try parse(",id,name,") == names)
        #expect(try parse("a{,id,,name,}") == [FieldSelection(name: "a", subfields: names)])
    }

    @Test func modifierValuesAreTrimmedButOtherwiseVerbatim() throws {
        let fields = try parse("a.b(  x y  ),c.d(),e.f({,.(})")
        #expect(fields[0].modifier("b") == "x y")
        #expect(fields[1].modifier("d") == "")
        #expect(fields[2].modifier("f") == "{,.(}")
    }

    @Test func emptyBracesGiveAnEmptyList() throws {
        #expect(try parse("friends{}") == [FieldSelection(name: "friends", subfields: [])])
    }

    @Test func duplicatesMergeIntoTheFirstOccurrence() throws {
        #expect(
            try parse("id,picture{url},name,picture.type(small){height,url}") == [
                FieldSelection(name: "id"),
                FieldSelection(
                    name: "picture", modifiers: [("type", "small")],
                    subfields: [FieldSelection(name: "url"), FieldSelection(name: "height")]),
                FieldSelection(name: "name"),
            ])
        // A repeated key keeps its first value, whether repeated in one item or across items.
        #expect(
            try parse("picture.type(large),picture.type(small)") == [
                FieldSelection(name: "picture", modifiers: [("type", "large")])
            ])
        #expect(
            try parse("picture.type(large).type(small)") == [
                FieldSelection(name: "picture", modifiers: [("type", "large")])
            ])
        #expect(
            try parse("a{b.x(1)},a{b{c}}") == [
                FieldSelection(
                    name: "a",
                    subfields: [
                        FieldSelection(name: "b", modifiers: [("x", "1")], subfields: [FieldSelection(name: "c")])
                    ])
            ])
    }

    @Test func syntaxErrorsCarryFacebookStyleMessages() {
        let cases: [(String, FieldSelectionError)] = [
            ("id,name}}", syntax("end of string instead of \"}\"", at: 7, in: "id,name}}")),
            ("friends{name", syntax("\"}\" instead of end of string", at: 12, in: "friends{name")),
            ("friends{name{id}", syntax("\"}\" instead of end of string", at: 16, in: "friends{name{id}")),
            ("picture.type(large", syntax("\")\" instead of end of string", at: 18, in: "picture.type(large")),
            ("picture.type large)", syntax("\"(\" instead of \"l\"", at: 13, in: "picture.type large)")),
            ("picture.(large)", syntax("modifier name instead of \"(\"", at: 8, in: "picture.(large)")),
            ("picture.", syntax("modifier name instead of end of string", at: 8, in: "picture.")),
            ("na-me", syntax("\",\" or end of string instead of \"-\"", at: 2, in: "na-me")),
            ("naïve", syntax("\",\" or end of string instead of \"ï\"", at: 2, in: "naïve")),
            ("id name", syntax("\",\" or end of string instead of \"n\"", at: 3, in: "id name")),
            ("a)", syntax("\",\" or end of string instead of \")\"", at: 1, in: "a)")),
            ("a{b-}", syntax("\",\" or \"}\" instead of \"-\"", at: 3, in: "a{b-}")),
            ("{name}", syntax("field name instead of \"{\"", at: 0, in: "{name}")),
            (".type(x)", syntax("field name instead of \".\"", at: 0, in: ".type(x)")),
            ("a{b}.limit(1)", syntax("\",\" or end of string instead of \".\"", at: 4, in: "a{b}.limit(1)")),
        ]
        for (raw, expected) in cases {
            #expect(throws: expected, "\(raw)") { try FieldSelectionParser.parse(raw) }
        }
    }

    @Test func lengthLimitCountsUTF8Bytes() throws {
        let longest = String(repeating: "a", count: FieldSelectionParser.maxLength)
        #expect(try parse(longest) == [FieldSelection(name: longest)])
        #expect(throws: FieldSelectionError.tooLong) { try FieldSelectionParser.parse(longest + "a") }
        // 2,049 two-byte scalars: under the limit in characters, over it in bytes.
        #expect(throws: FieldSelectionError.tooLong) {
            try FieldSelectionParser.parse(String(repeating: "é", count: 2049))
        }
    }

    @Test func depthLimitCountsBraceLevels() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "a{", count: depth) + "b" + String(repeating: "}", count: depth)
        }
        var expected = FieldSelection(name: "b")
        for _ in 0..<FieldSelectionParser.maxDepth { expected = FieldSelection(name: "a", subfields: [expected]) }
        #expect(try parse(nested(FieldSelectionParser.maxDepth)) == [expected])
        #expect(throws: FieldSelectionError.tooDeep) {
            try FieldSelectionParser.parse(nested(FieldSelectionParser.maxDepth + 1))
        }
        // Depth is checked as braces open, before the missing closers are noticed.
        #expect(throws: FieldSelectionError.tooDeep) {
            try FieldSelectionParser.parse(String(repeating: "a{", count: 40))
        }
    }

    @Test func errorMessagesForResponses() {
        #expect(FieldSelectionError.tooLong.message == "The fields parameter is longer than 4096 characters.")
        #expect(FieldSelectionError.tooDeep.message == "The fields parameter nests deeper than 8 levels.")
        #expect(FieldSelectionError.syntax("x").message == "x")
    }

    @Test func fuzzedInputNeverCrashesAndSuccessesRoundTrip() throws {
        var rng = SplitMix64(seed: 0x6A7E_4005E)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz.,(){}_0123456789 ".unicodeScalars)
        let seed =
            "id,name,picture.type(large),picture.width(200).height(200),friends.limit(5){name,picture{url}},email"
        let exotic: [Unicode.Scalar] = ["é", "\u{301}", "中", "😀", "\u{0}", "\u{FEFF}", "\u{2028}", "\u{A0}"]
        var successes = 0
        var failures = 0
        for _ in 0..<2_000 {
            func randomScalar() -> Unicode.Scalar {
                let roll = rng.next() % 100
                if roll < 5 { return exotic[Int(rng.next() % UInt64(exotic.count))] }
                // any BMP scalar below the surrogates
                if roll < 8 { return Unicode.Scalar(UInt32(rng.next() % 0xD800))! }
                return alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            var scalars = String.UnicodeScalarView()
            if rng.next() % 4 == 0 {
                // Mutating valid input reaches the modifier and brace paths that pure noise rarely does.
                scalars = seed.unicodeScalars
                for _ in 0...(rng.next() % 3) {
                    let at = scalars.index(scalars.startIndex, offsetBy: Int(rng.next() % UInt64(scalars.count)))
                    switch rng.next() % 3 {
                    case 0: scalars.remove(at: at)
                    case 1: scalars.insert(randomScalar(), at: at)
                    default: scalars.replaceSubrange(at...at, with: [randomScalar()])
                    }
                }
            } else {
                for _ in 0..<Int(rng.next() % 48) { scalars.append(randomScalar()) }
            }
            let raw = String(scalars)
            // Typed throws make "a result or a FieldSelectionError" a compile-time fact; the rest is behaviour.
            let outcome = Result { () throws(FieldSelectionError) in try FieldSelectionParser.parse(raw) }
            switch outcome {
            case .success(let fields):
                successes += 1
                checkInvariants(fields, depth: 0)
                // The canonical form must parse back to the same value: nothing was lost or invented.
                #expect(try FieldSelectionParser.parse(canonical(fields)) == fields, "\(raw)")
            case .failure(let error):
                failures += 1
                #expect(throws: error, "errors must be deterministic for \(raw)") {
                    try FieldSelectionParser.parse(raw)
                }
            }
        }
        #expect(successes + failures == 2_000)
        #expect(successes > 300)
        #expect(failures > 300)
    }

    @Test func theShortcutForPlainNamesAgreesWithTheFullParser() throws {
        var rng = SplitMix64(seed: 0x5407_C07)
        let plain = Array("abcXYZ_09,".unicodeScalars)
        let other = Array(" .(){}\té".unicodeScalars)
        var taken = 0
        for round in 0..<3_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(rng.next() % 24) { scalars.append(plain[Int(rng.next() % UInt64(plain.count))]) }
            // One round in three carries a character the shortcut must leave to the full parser.
            if round % 3 == 0, !scalars.isEmpty {
                let at = scalars.index(scalars.startIndex, offsetBy: Int(rng.next() % UInt64(scalars.count)))
                scalars.insert(other[Int(rng.next() % UInt64(other.count))], at: at)
            }
            let raw = String(scalars)
            let full = Result { () throws(FieldSelectionError) in try FieldSelectionParser.parseFully(raw) }
            if let shortcut = FieldSelectionParser.plainNames(raw) {
                taken += 1
                #expect(raw.unicodeScalars.allSatisfy { plain.contains($0) }, "\(raw)")
                #expect(full == .success(shortcut), "\(raw)")
            } else {
                #expect(raw.unicodeScalars.contains { other.contains($0) }, "\(raw)")
            }
            #expect(Result { () throws(FieldSelectionError) in try FieldSelectionParser.parse(raw) } == full, "\(raw)")
        }
        #expect(taken >= 1_900)
        #expect(
            FieldSelectionParser.plainNames("id,name,id,,email,")
                == ["id", "name", "email"].map { FieldSelection(name: $0) })
        #expect(FieldSelectionParser.plainNames("id, name") == nil)
    }

    private func checkInvariants(_ fields: [FieldSelection], depth: Int) {
        #expect(depth <= FieldSelectionParser.maxDepth)
        #expect(Set(fields.map(\.name)).count == fields.count)
        for field in fields {
            #expect(!field.name.isEmpty && field.name.unicodeScalars.allSatisfy(isNameScalar))
            #expect(Set(field.modifiers.map(\.0)).count == field.modifiers.count)
            for (key, value) in field.modifiers {
                #expect(!key.isEmpty && key.unicodeScalars.allSatisfy(isNameScalar))
                #expect(!value.unicodeScalars.contains(")"))
            }
            if let subfields = field.subfields { checkInvariants(subfields, depth: depth + 1) }
        }
    }

    private func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
    }

    private func canonical(_ fields: [FieldSelection]) -> String {
        fields.map { field in
            field.name + field.modifiers.map { ".\($0.0)(\($0.1))" }.joined()
                + (field.subfields.map { "{" + canonical($0) + "}" } ?? "")
        }.joined(separator: ",")
    }
}

/// SplitMix64: a seeded generator so a fuzz failure reproduces exactly.
private struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
