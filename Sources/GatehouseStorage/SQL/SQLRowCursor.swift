import Foundation
import NIOConcurrencyHelpers
import SQLKit

/// A row's cells by position, typed as the stores read them; NULL reads as nil.
///
/// SQLite's kept rows (``SQLiteKeptRow``) and PostgreSQL's prepared rows (`PostgresPreparedRow`) are cells;
/// any other row is read through ``SQLNamedCells``, by the name its layout gives each position.
package protocol SQLRowCells {
    /// The statement whose text fixes every row's column names and order (a PostgreSQL prepared statement's
    /// ``SQLPreparedKey``), so ``SQLColumnLayout/check(_:)`` checks one of its rows, not each; nil: check each.
    var columnsFixedBy: ObjectIdentifier? { get }
    var columnCount: Int { get }
    func columnName(_ index: Int) -> String
    func isNull(_ index: Int) throws -> Bool
    func string(_ index: Int) throws -> String?
    func integer(_ index: Int) throws -> Int64?
    func bool(_ index: Int) throws -> Bool?
    func data(_ index: Int) throws -> Data?
}

extension SQLRowCells {
    package var columnsFixedBy: ObjectIdentifier? { nil }
}

/// A row that can also be read by position (issue 43: the caller's row skips the lookups by name).
package protocol SQLPositionalRow: SQLRow {
    /// The row's cells; built on demand, so a store that reads by name pays nothing for it.
    var cells: any SQLRowCells { get }
}

/// Any `SQLRow` as cells: position `i` reads the column `names[i]` by name, converted as the driver converts it.
package struct SQLNamedCells: SQLRowCells {
    package let row: any SQLRow
    package let names: [String]

    package init(_ row: any SQLRow, names: [String]) {
        self.row = row
        self.names = names
    }

    package var columnCount: Int { names.count }
    package func columnName(_ index: Int) -> String { names[index] }
    package func isNull(_ index: Int) throws -> Bool { try row.decodeNil(column: names[index]) }
    package func string(_ index: Int) throws -> String? { try row.decode(column: names[index], as: String?.self) }
    package func integer(_ index: Int) throws -> Int64? { try row.decode(column: names[index], as: Int64?.self) }
    package func bool(_ index: Int) throws -> Bool? { try row.decode(column: names[index], as: Bool?.self) }
    package func data(_ index: Int) throws -> Data? { try row.decode(column: names[index], as: Data?.self) }
}

/// The decoders read a column the list does not have where they read it: the list (the SELECT's order) and the
/// decoder's reads disagree, so the row would decode into the wrong fields. Thrown instead of guessing.
package struct SQLColumnOrderError: Error, CustomStringConvertible {
    package let description: String
}

/// A statement's columns in SELECT order, written once: the statement's text is built from `selected` and the
/// decoders read the same positions, each naming the column it expects (`names`, the unaliased names).
package struct SQLColumnLayout: Sendable {
    /// What the SELECT calls each column (aliases included), as a row reports them.
    package let selected: [String]
    /// What the decoders call each column, position for position with `selected`.
    package let names: [String]
    /// The statements (``SQLRowCells/columnsFixedBy``) a row of which has passed ``check(_:)``.
    private let checkedStatements = NIOLockedValueBox<Set<ObjectIdentifier>>([])

    package init(selected: [String], names: [String]) {
        precondition(selected.count == names.count, "a layout names each selected column once")
        self.selected = selected
        self.names = names
    }

    /// A table's own columns, unaliased.
    package init(_ columns: [String]) {
        self.init(selected: columns, names: columns)
    }

    /// Throws ``SQLColumnOrderError`` unless `cells` has exactly these columns in this order.
    ///
    /// Once per statement where the cells name one (``SQLRowCells/columnsFixedBy``): on PostgreSQL, reading
    /// each name built a cell per column on every read. The statement's text, not the connection it was
    /// prepared on, decides the names and their order: the statement names each column it selects (no `*`), so
    /// a table's own column order never reaches the row; PostgreSQL refuses to run a prepared statement whose
    /// result changed shape ("cached plan must not change result type"); and a cell of another type fails its
    /// own decode. A statement whose columns are not the layout's never passes, so each of its rows is refused.
    package func check(_ cells: any SQLRowCells) throws {
        let statement = cells.columnsFixedBy
        if let statement, checkedStatements.withLockedValue({ $0.contains(statement) }) { return }
        guard cells.columnCount == selected.count else {
            throw SQLColumnOrderError(
                description: "the row has \(cells.columnCount) columns where the layout lists \(selected.count)")
        }
        for (index, name) in selected.enumerated() where cells.columnName(index) != name {
            throw SQLColumnOrderError(
                description: "column \(index) is \(cells.columnName(index)) where the layout lists \(name)")
        }
        if let statement { checkedStatements.withLockedValue { _ = $0.insert(statement) } }
    }

    /// A cursor at the layout's first column.
    package func cursor(_ cells: any SQLRowCells) -> SQLRowCursor {
        SQLRowCursor(cells: cells, names: names)
    }
}

/// Reads a row's cells in order: each read names the column it expects, and a name that is not the layout's
/// at that position throws ``SQLColumnOrderError``, so a column added to or moved in a list without its
/// decoder (or the reverse) fails on its first read instead of decoding into the wrong field.
///
/// Not generic over the cells: a generic cursor handed an opened existential runs unspecialized, and looked up
/// its generic metadata on every read (measured: half the decode's CPU); one witness call a cell costs less.
package struct SQLRowCursor {
    package let cells: any SQLRowCells
    private let names: [String]
    package private(set) var position = 0

    package init(cells: any SQLRowCells, names: [String]) {
        self.cells = cells
        self.names = names
    }

    /// The position of `column`, which must be the next one; moves past it.
    private mutating func next(_ column: String) throws -> Int {
        guard position < names.count, names[position] == column else {
            let listed = position < names.count ? names[position] : "the end of the row"
            throw SQLColumnOrderError(
                description: "a decoder reads \(column) at position \(position), where the layout lists \(listed)")
        }
        defer { position += 1 }
        return position
    }

    private func required<T>(_ value: T?, _ column: String) throws -> T {
        guard let value else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "\(column) is NULL"))
        }
        return value
    }

    package mutating func string(_ column: String) throws -> String {
        try required(cells.string(next(column)), column)
    }
    package mutating func optionalString(_ column: String) throws -> String? { try cells.string(next(column)) }
    package mutating func bool(_ column: String) throws -> Bool { try required(cells.bool(next(column)), column) }
    package mutating func integer(_ column: String) throws -> Int64 {
        try required(cells.integer(next(column)), column)
    }
    package mutating func data(_ column: String) throws -> Data? { try cells.data(next(column)) }
    package mutating func date(_ column: String) throws -> Date { SQLCodec.date(try integer(column)) }
    package mutating func optionalDate(_ column: String) throws -> Date? {
        try cells.integer(next(column)).map(SQLCodec.date)
    }
    package mutating func list(_ column: String) throws -> [String] { try SQLCodec.list(string(column)) }

    /// Moves past `column`, which the decoder does not read (it is selected for another reader).
    package mutating func skip(_ column: String) throws { _ = try next(column) }

    /// Whether a left-joined table is missing (its first column, `columns[0]`, is NULL); if so, moves past
    /// all of `columns`, which the decoder then does not read.
    package mutating func skipMissing(_ columns: [String]) throws -> Bool {
        let first = try next(columns[0])
        position = first
        guard try cells.isNull(first) else { return false }
        for column in columns { try skip(column) }
        return true
    }

    /// Throws unless every column of the layout has been read or skipped.
    package func finish() throws {
        guard position == names.count else {
            throw SQLColumnOrderError(
                description: "the decoders read \(position) of the layout's \(names.count) columns")
        }
    }
}

extension SQLRow {
    /// The row's cells by position when it has them, else read by the layout's selected names.
    package func cells(_ layout: SQLColumnLayout) -> any SQLRowCells {
        (self as? any SQLPositionalRow)?.cells ?? SQLNamedCells(self, names: layout.selected)
    }
}
