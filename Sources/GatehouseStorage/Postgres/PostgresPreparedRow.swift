import Atomics
import Foundation
import PostgresKit
import SQLKit

/// A prepared statement's row: read by name exactly as PostgresKit's rows are, and by position through
/// postgres-nio's own decoding (``SQLPositionalRow``), which skips `Decodable` and the lookups by name.
struct PostgresPreparedRow: SQLPositionalRow {
    let row: PostgresRow
    /// The prepared statement's key (``SQLRowCells/columnsFixedBy``).
    let statement: ObjectIdentifier
    /// PostgresKit's row, built by the first read by name and kept for the next. Each view (this one and
    /// ``cells``) copies the row into postgres-nio's random-access row; built eagerly, the caller's row, read
    /// by position only, made that copy twice (issue 43). A lazy reference rather than a lock, because every
    /// read by name (one a column) loads it.
    private let namedView = ManagedAtomicLazyReference<NamedView>()

    init(_ row: PostgresRow, statement: ObjectIdentifier) {
        self.row = row
        self.statement = statement
    }

    var cells: any SQLRowCells { PostgresCells(row.makeRandomAccess(), statement: statement) }

    private var named: any SQLRow {
        if let view = namedView.load() { return view.row }
        return namedView.storeIfNilThenLoad(NamedView(row.sql())).row
    }

    var allColumns: [String] { named.allColumns }
    func contains(column: String) -> Bool { named.contains(column: column) }
    func decodeNil(column: String) throws -> Bool { try named.decodeNil(column: column) }
    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        try named.decode(column: column, as: type)
    }
}

/// PostgresKit's row as an object, for ``PostgresPreparedRow``'s lazy reference.
private final class NamedView: Sendable {
    let row: any SQLRow

    init(_ row: any SQLRow) { self.row = row }
}

/// A row's cells by index, each decoded by postgres-nio's `PostgresDecodable` for the column's own type.
struct PostgresCells: SQLRowCells {
    let row: PostgresRandomAccessRow
    let columnsFixedBy: ObjectIdentifier?

    init(_ row: PostgresRandomAccessRow, statement: ObjectIdentifier?) {
        self.row = row
        self.columnsFixedBy = statement
    }

    var columnCount: Int { row.count }
    func columnName(_ index: Int) -> String { row[index].columnName }
    func isNull(_ index: Int) throws -> Bool { row[index].bytes == nil }
    func string(_ index: Int) throws -> String? { try row[index].decode(String?.self) }
    func integer(_ index: Int) throws -> Int64? { try row[index].decode(Int64?.self) }
    func bool(_ index: Int) throws -> Bool? { try row[index].decode(Bool?.self) }
    func data(_ index: Int) throws -> Data? { try row[index].decode(Data?.self) }
}
