import Foundation
import SQLKit

/// The kept row's values by position, for the decoders that read the caller's row in SELECT order. In a file of
/// its own: scripts/sqlite-statements compiles SQLiteKeptRow.swift without the stores' cursor.
extension SQLiteKeptRow: SQLPositionalRow, SQLRowCells {
    package var cells: any SQLRowCells { self }
    package var columnCount: Int { values.count }
    package func columnName(_ index: Int) -> String { columns.names[index] }
    package func isNull(_ index: Int) throws -> Bool { values[index] == .null }

    package func string(_ index: Int) throws -> String? {
        switch values[index] {
        case .null: return nil
        case .text(let text): return text
        default: throw Self.mismatch(String.self, index)
        }
    }

    package func integer(_ index: Int) throws -> Int64? {
        switch values[index] {
        case .null: return nil
        case .integer(let integer): return integer
        default: throw Self.mismatch(Int64.self, index)
        }
    }

    package func bool(_ index: Int) throws -> Bool? { try integer(index).map { $0 != 0 } }

    package func data(_ index: Int) throws -> Data? {
        switch values[index] {
        case .null: return nil
        case .blob(let data): return data
        default: throw Self.mismatch(Data.self, index)
        }
    }

    private static func mismatch(_ type: Any.Type, _ index: Int) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: "column \(index) is not a \(type)"))
    }
}
