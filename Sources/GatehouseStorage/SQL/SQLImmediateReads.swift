import SQLKit

/// A database that can run a kept read now, on the caller's thread, without the driver's statement life cycle
/// or thread hop (SQLite: ``SQLiteKeptReads`` behind ``SQLiteReadRouting``).
///
/// A store asks it first for a hot read and, when it answers nil, runs the same statement the usual way, so the
/// store keeps one implementation and one decoder on every backend.
package protocol SQLImmediateReads: SQLDatabase {
    /// `statement`'s rows with `binds` in order, read now; nil when the caller should run it as usual.
    func rowsNow(_ statement: SQLStatementText, _ binds: [String]) -> [any SQLRow]?
}
