import Foundation
import SQLKit

/// One value of a row read by ``SQLiteKeptReads``, as SQLite stored it.
package enum SQLiteKeptValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A kept statement's column names and where each is, worked out once when it is prepared.
package final class SQLiteKeptColumns: Sendable {
    package let names: [String]
    private let positions: [String: Int]

    package init(_ names: [String]) {
        self.names = names
        // The first of two equal names wins, as SQLite's own lookup by name does.
        self.positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    package func position(of column: String) -> Int? { positions[column] }
}

/// A row read by ``SQLiteKeptReads``: values by position, found by name through ``SQLiteKeptColumns``, and
/// converted to the few types the stores read (`RowReader`) without a `Decoder`. The conversions are SQLiteKit's:
/// an integer reads as `Bool` (non-zero) or `Int`, text as `String`, a blob as `Data`, NULL as `nil`.
package struct SQLiteKeptRow: SQLRow, Sendable {
    package let columns: SQLiteKeptColumns
    package let values: [SQLiteKeptValue]

    package init(columns: SQLiteKeptColumns, values: [SQLiteKeptValue]) {
        self.columns = columns
        self.values = values
    }

    package var allColumns: [String] { columns.names }

    package func contains(column: String) -> Bool { columns.position(of: column) != nil }

    package func decodeNil(column: String) throws -> Bool { try value(column) == .null }

    package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        let value = try value(column)
        if let decoded = Self.convert(value, to: type) { return decoded }
        throw DecodingError.typeMismatch(
            type, .init(codingPath: [], debugDescription: "column \(column) does not hold a \(type)"))
    }

    private func value(_ column: String) throws -> SQLiteKeptValue {
        guard let position = columns.position(of: column) else {
            throw DecodingError.keyNotFound(
                SQLiteKeptColumnKey(column), .init(codingPath: [], debugDescription: "no column \(column)"))
        }
        return values[position]
    }

    /// `value` as `D`, for the types the stores read and their optionals; nil when it is not one of them.
    private static func convert<D>(_ value: SQLiteKeptValue, to type: D.Type) -> D? {
        switch value {
        case .null:
            guard let optional = type as? any ExpressibleByNilLiteral.Type else { return nil }
            return optional.init(nilLiteral: ()) as? D
        case .text(let text):
            return text as? D ?? Optional(text) as? D
        case .integer(let integer):
            return integer as? D ?? Optional(integer) as? D ?? Int(integer) as? D ?? Optional(Int(integer)) as? D
                ?? (integer != 0) as? D ?? Optional(integer != 0) as? D ?? Double(integer) as? D
                ?? Optional(Double(integer)) as? D
        case .real(let real):
            return real as? D ?? Optional(real) as? D
        case .blob(let data):
            return data as? D ?? Optional(data) as? D ?? [UInt8](data) as? D ?? Optional([UInt8](data)) as? D
        }
    }
}

private struct SQLiteKeptColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { self.stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
