import Foundation

/// One lexical unit of an FQL query, with the character offset it starts at (for error messages).
package struct FQLToken: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// A bare word: a keyword (`SELECT`, `FROM`, `WHERE`, `IN`, `AND`), a table, a column or a function name.
        case word(String)
        /// A quoted string literal, unescaped.
        case string(String)
        /// An unsigned integer literal.
        case number(String)
        case comma, leftParen, rightParen, equals, star
        case end
    }

    package var kind: Kind
    /// The text as written (what error messages quote).
    package var text: String
    /// 0-based character offset in the query.
    package var position: Int

    /// True for a word equal to `keyword`, ignoring case (FQL keywords are case-insensitive).
    package func isKeyword(_ keyword: String) -> Bool {
        if case .word(let w) = kind { return w.caseInsensitiveCompare(keyword) == .orderedSame }
        return false
    }
}

/// Why an FQL query was rejected before it was evaluated.
package struct FQLSyntaxError: Error, Sendable, Equatable {
    /// Facebook's wording after `(#601) `, e.g. `Parser error: unexpected 'FRO' at position 12.`
    package var message: String

    package static func unexpected(_ token: FQLToken) -> FQLSyntaxError {
        if token.kind == .end { return FQLSyntaxError(message: "Parser error: unexpected end of query.") }
        return FQLSyntaxError(message: "Parser error: unexpected '\(token.text)' at position \(token.position).")
    }
}

/// Splits an FQL query into tokens. Any character outside FQL's small alphabet is an error at its position.
package enum FQLTokenizer {
    /// Longest query accepted; Facebook's limit was similar and anything longer is abuse.
    package static let maxLength = 4096

    package static func tokenize(_ query: String) throws(FQLSyntaxError) -> [FQLToken] {
        let chars = Array(query)
        guard chars.count <= maxLength else {
            throw FQLSyntaxError(message: "Parser error: the query is longer than \(maxLength) characters.")
        }
        var tokens: [FQLToken] = []
        var i = 0
        func single(_ kind: FQLToken.Kind) {
            tokens.append(FQLToken(kind: kind, text: String(chars[i]), position: i)); i += 1
        }
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            switch c {
            case ",": single(.comma)
            case "(": single(.leftParen)
            case ")": single(.rightParen)
            case "=": single(.equals)
            case "*": single(.star)
            case "'", "\"":
                let start = i
                var value = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "\\", i + 1 < chars.count { value.append(chars[i + 1]); i += 2; continue }
                    if chars[i] == c { closed = true; i += 1; break }
                    value.append(chars[i]); i += 1
                }
                guard closed else {
                    throw FQLSyntaxError(message: "Parser error: unterminated string starting at position \(start).")
                }
                tokens.append(FQLToken(kind: .string(value), text: String(chars[start..<i]), position: start))
            case _ where c.isASCII && c.isNumber:
                let start = i
                while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
                let text = String(chars[start..<i])
                tokens.append(FQLToken(kind: .number(text), text: text, position: start))
            case _ where c.isASCII && (c.isLetter || c == "_"):
                let start = i
                while i < chars.count, chars[i].isASCII, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" {
                    i += 1
                }
                let text = String(chars[start..<i])
                tokens.append(FQLToken(kind: .word(text), text: text, position: start))
            default:
                throw FQLSyntaxError.unexpected(FQLToken(kind: .word(String(c)), text: String(c), position: i))
            }
        }
        tokens.append(FQLToken(kind: .end, text: "", position: chars.count))
        return tokens
    }
}
