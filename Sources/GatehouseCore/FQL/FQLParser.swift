import Foundation

/// A parsed FQL statement: `SELECT columns FROM table WHERE condition`.
package struct FQLQuery: Sendable, Equatable {
    /// Column names as written, lowercased, in order.
    package var columns: [String]
    package var table: String
    package var condition: FQLCondition
}

/// The WHERE clause. FQL needs one; Gatehouse's subset has a single comparison.
package struct FQLCondition: Sendable, Equatable {
    package var column: String
    package var predicate: Predicate

    package enum Predicate: Sendable, Equatable {
        /// `column = value`
        case equals(FQLValue)
        /// `column IN (value, …)` or `column IN (SELECT …)`
        case inList([FQLValue])
        case inQuery(Box)
    }

    /// Indirection so a query can nest inside a condition.
    package final class Box: Sendable, Equatable {
        package let query: FQLQuery
        package init(_ query: FQLQuery) { self.query = query }
        package static func == (lhs: Box, rhs: Box) -> Bool { lhs.query == rhs.query }
    }
}

/// A literal or `me()`.
package enum FQLValue: Sendable, Equatable {
    case me
    case number(String)
    case string(String)
}

/// Recursive-descent parser for the FQL subset Gatehouse answers:
///
/// ```
/// query     = "SELECT" column { "," column } "FROM" name "WHERE" condition
/// condition = column ( "=" value | "IN" "(" ( query | value { "," value } ) ")" )
/// value     = "me" "(" ")" | number | string
/// ```
///
/// Keywords are case-insensitive; names are words of letters, digits and `_`. Subqueries nest at most
/// ``maxDepth`` deep. Anything else is a syntax error naming the unexpected token and its position.
package struct FQLParser {
    package static let maxDepth = 3

    private let tokens: [FQLToken]
    private var index = 0

    private init(tokens: [FQLToken]) { self.tokens = tokens }

    /// Parses a whole query; trailing tokens are an error.
    package static func parse(_ text: String) throws(FQLSyntaxError) -> FQLQuery {
        var parser = FQLParser(tokens: try FQLTokenizer.tokenize(text))
        let query = try parser.query(depth: 0)
        try parser.expectEnd()
        return query
    }

    private var current: FQLToken { tokens[index] }

    private mutating func advance() -> FQLToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private mutating func keyword(_ word: String) throws(FQLSyntaxError) {
        guard current.isKeyword(word) else { throw .unexpected(current) }
        _ = advance()
    }

    private mutating func expect(_ kind: FQLToken.Kind) throws(FQLSyntaxError) {
        guard current.kind == kind else { throw .unexpected(current) }
        _ = advance()
    }

    private mutating func expectEnd() throws(FQLSyntaxError) {
        guard current.kind == .end else { throw .unexpected(current) }
    }

    private static let reserved: Set<String> = ["select", "from", "where", "in", "and", "or", "not"]

    /// A table or column name: a word that is not a keyword.
    private mutating func name() throws(FQLSyntaxError) -> String {
        guard case .word(let w) = current.kind, !Self.reserved.contains(w.lowercased()) else {
            throw .unexpected(current)
        }
        _ = advance()
        return w.lowercased()
    }

    private mutating func query(depth: Int) throws(FQLSyntaxError) -> FQLQuery {
        guard depth < Self.maxDepth else {
            throw FQLSyntaxError(
                message:
                    "Parser error: subqueries nest deeper than \(Self.maxDepth) levels at position \(current.position)."
            )
        }
        try keyword("SELECT")
        var columns = [try name()]
        while current.kind == .comma {
            _ = advance()
            columns.append(try name())
        }
        try keyword("FROM")
        let table = try name()
        try keyword("WHERE")
        let clause = try condition(depth: depth)
        return FQLQuery(columns: columns, table: table, condition: clause)
    }

    private mutating func condition(depth: Int) throws(FQLSyntaxError) -> FQLCondition {
        let column = try name()
        if current.kind == .equals {
            _ = advance()
            return FQLCondition(column: column, predicate: .equals(try value()))
        }
        try keyword("IN")
        try expect(.leftParen)
        let predicate: FQLCondition.Predicate
        if current.isKeyword("SELECT") {
            predicate = .inQuery(FQLCondition.Box(try query(depth: depth + 1)))
        } else {
            var values = [try value()]
            while current.kind == .comma {
                _ = advance()
                values.append(try value())
            }
            predicate = .inList(values)
        }
        try expect(.rightParen)
        return FQLCondition(column: column, predicate: predicate)
    }

    private mutating func value() throws(FQLSyntaxError) -> FQLValue {
        switch current.kind {
        case .number(let n):
            _ = advance()
            return .number(n)
        case .string(let s):
            _ = advance()
            return .string(s)
        case .word(let w) where w.lowercased() == "me":
            _ = advance()
            try expect(.leftParen)
            try expect(.rightParen)
            return .me
        default:
            throw .unexpected(current)
        }
    }
}
