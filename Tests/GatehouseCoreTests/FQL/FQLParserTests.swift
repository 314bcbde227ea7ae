import Foundation
import GatehouseProtocol
@testable import GatehouseCore
import Testing

/// The FQL tokenizer and recursive-descent parser: the accepted grammar, Facebook's 601 messages, and a fuzz run.
@Suite struct FQLParserTests {
    @Test func parsesTheThreeSupportedShapes() throws {
        #expect(
            try FQLParser.parse("SELECT uid, name FROM user WHERE uid = me()")
                == FQLQuery(
                    columns: ["uid", "name"], table: "user",
                    condition: FQLCondition(column: "uid", predicate: .equals(.me))))
        let nested = try FQLParser.parse(
            "select name from USER where uid in (SELECT uid2 FROM friend WHERE uid1 = me())")
        #expect(nested.table == "user")
        #expect(
            nested.condition.predicate
                == .inQuery(
                    FQLCondition.Box(
                        FQLQuery(
                            columns: ["uid2"], table: "friend",
                            condition: FQLCondition(column: "uid1", predicate: .equals(.me))))))
        #expect(
            try FQLParser.parse("SELECT email,user_friends FROM permissions WHERE uid=me()").columns == [
                "email", "user_friends",
            ])
        #expect(
            try FQLParser.parse("SELECT name FROM user WHERE uid IN (1, '2')").condition.predicate
                == .inList([.number("1"), .string("2")]))
    }

    @Test(arguments: [
        ("SELECT uid FRO user WHERE uid = me()", "(#601) Parser error: unexpected 'FRO' at position 11."),
        ("SELECT FROM user WHERE uid = me()", "(#601) Parser error: unexpected 'FROM' at position 7."),
        ("SELECT uid FROM user", "(#601) Parser error: unexpected end of query."),
        ("SELECT uid FROM user WHERE uid = me() LIMIT 5", "(#601) Parser error: unexpected 'LIMIT' at position 38."),
        ("SELECT uid FROM user WHERE uid = me(", "(#601) Parser error: unexpected end of query."),
        ("SELECT uid FROM user WHERE uid = me() OR 1=1", "(#601) Parser error: unexpected 'OR' at position 38."),
        ("SELECT uid; DROP TABLE users", "(#601) Parser error: unexpected ';' at position 10."),
        ("SELECT uid FROM user WHERE uid = 'abc", "(#601) Parser error: unterminated string starting at position 33."),
        ("", "(#601) Parser error: unexpected end of query."),
        ("SELECT * FROM user WHERE uid = me()", "(#601) Parser error: unexpected '*' at position 7."),
    ])
    func rejectsAnythingOutsideTheGrammar(query: String, message: String) {
        #expect(throws: FQLSyntaxError.self) { try FQLParser.parse(query) }
        do { _ = try FQLParser.parse(query) } catch { #expect(GraphError.fqlParser(error.message).message == message) }
    }

    @Test func limitsLengthAndNesting() {
        #expect(throws: FQLSyntaxError.self) { try FQLParser.parse(String(repeating: "a", count: 5000)) }
        var deep = "SELECT uid FROM user WHERE uid = me()"
        for _ in 0..<4 { deep = "SELECT uid FROM user WHERE uid IN (\(deep))" }
        #expect(throws: FQLSyntaxError.self) { try FQLParser.parse(deep) }
    }

    /// Random input, random mutations of valid queries and random token soup: the parser always returns a
    /// query or a 601-style error, never crashes or hangs.
    @Test func fuzzNeverCrashes() {
        var rng = SplitMix64(seed: 0x5eed_f01)
        let valid = [
            "SELECT uid, name FROM user WHERE uid = me()",
            "SELECT name FROM user WHERE uid IN (SELECT uid2 FROM friend WHERE uid1 = me())",
            "SELECT email FROM permissions WHERE uid = me()",
        ]
        let words = [
            "SELECT", "FROM", "WHERE", "IN", "me", "(", ")", ",", "=", "uid", "user", "'x'", "42", "*", "\"", ";",
            "\u{0}", "é", "--",
        ]
        var parsed = 0, rejected = 0
        for i in 0..<3000 {
            let input: String
            switch i % 3 {
            case 0:
                input = String(
                    (0..<Int.random(in: 0...60, using: &rng)).map { _ in
                        Character(Unicode.Scalar(UInt8.random(in: 0...127, using: &rng)))
                    })
            case 1:
                var chars = Array(valid[Int.random(in: 0..<valid.count, using: &rng)])
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !chars.isEmpty {
                    let at = Int.random(in: 0..<chars.count, using: &rng)
                    if Bool.random(using: &rng) {
                        chars.remove(at: at)
                    } else {
                        chars.insert(Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &rng))), at: at)
                    }
                }
                input = String(chars)
            default:
                input = (0..<Int.random(in: 0...20, using: &rng)).map { _ in
                    words[Int.random(in: 0..<words.count, using: &rng)]
                }.joined(separator: " ")
            }
            do {
                _ = try FQLParser.parse(input)
                parsed += 1
            } catch {
                #expect(error.message.hasPrefix("Parser error: "))
                rejected += 1
            }
        }
        #expect(parsed + rejected == 3000)
        #expect(rejected > 0)
    }
}
