import Foundation
import NIOConcurrencyHelpers
import SQLKit
import VaporCSQLite

/// Reads that keep their statement prepared and run on the caller's thread (issue 43 item 2: the cold `/me`).
///
/// sqlite-nio prepares every statement, runs it on its thread pool and finalizes it; a cold `/me` paid both for
/// its 58-column caller lookup (docs/BENCHMARKS.md, "Cold `/me`"). These read-only connections are opened through
/// sqlite-nio's own SQLite (its `VaporCSQLite` module), so the process still has one SQLite and one set of POSIX
/// locks on the file. Each connection keeps its statements by text and resets them between uses.
///
/// A read never waits here: the connections have no busy timeout, and a read that finds no idle connection, gets
/// `SQLITE_BUSY` or fails in any way answers nil, and the caller takes the routed path (``SQLiteReadRouting``'s
/// readers), which waits and reports errors as every other read does. Each read is its own autocommitted
/// statement, so it sees every write that returned before it started, as the routed readers do.
package final class SQLiteKeptReads: Sendable {
    private let path: String
    private let capacity: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var idle: [KeptConnection] = []
        var opened = 0
        var closed = false
    }

    /// - Parameters:
    ///   - path: the database file, already created and migrated by the writer.
    ///   - capacity: how many connections may be open at once; reads beyond them answer nil.
    package init(path: String, capacity: Int) {
        self.path = path
        self.capacity = capacity
    }

    /// The rows of `sql` with `binds` in order, read now on this thread; nil when the caller should take the
    /// routed path instead (no idle connection, busy, closed, or any SQLite error).
    package func rows(_ sql: String, binds: [String]) -> [SQLiteKeptRow]? {
        guard let connection = checkOut() else { return nil }
        let rows = connection.rows(sql, binds: binds)
        checkIn(connection, healthy: rows != nil)
        return rows
    }

    /// Closes every connection; later reads answer nil. A connection in use closes when it is handed back.
    package func close() {
        let idle = state.withLockedValue { state -> [KeptConnection] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    deinit { close() }

    private func checkOut() -> KeptConnection? {
        let claim = state.withLockedValue { state -> (connection: KeptConnection?, mayOpen: Bool) in
            if state.closed { return (nil, false) }
            if let connection = state.idle.popLast() { return (connection, false) }
            guard state.opened < capacity else { return (nil, false) }
            state.opened += 1
            return (nil, true)
        }
        if let connection = claim.connection { return connection }
        guard claim.mayOpen else { return nil }
        if let connection = KeptConnection(path: path) { return connection }
        state.withLockedValue { $0.opened -= 1 }
        return nil
    }

    private func checkIn(_ connection: KeptConnection, healthy: Bool) {
        let keep = state.withLockedValue { state -> Bool in
            guard healthy, !state.closed else {
                state.opened -= 1
                return false
            }
            state.idle.append(connection)
            return true
        }
        if !keep { connection.close() }
    }
}

/// One read-only connection and its kept statements. Used by one thread at a time (``SQLiteKeptReads`` hands it
/// out under a lock), so SQLite's own mutex is off.
private final class KeptConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var statements: [String: (statement: OpaquePointer, columns: SQLiteKeptColumns)] = [:]

    init?(path: String) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        guard sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
            sqlite_nio_sqlite3_close(handle)
            return nil
        }
        self.handle = handle
    }

    func rows(_ sql: String, binds: [String]) -> [SQLiteKeptRow]? {
        guard let (statement, columns) = prepared(sql) else { return nil }
        // Reset only: every parameter is bound again before the next step. sqlite3_clear_bindings would expire
        // the statement (sqlite-nio's SQLite marks this one's parameters as plan-relevant), so each use would
        // prepare it again, which is what keeping it saves (measured: 12 µs a read kept, over 75 µs expired).
        defer { sqlite_nio_sqlite3_reset(statement) }
        for (index, value) in binds.enumerated() {
            // SQLITE_TRANSIENT: SQLite copies the text, which lives only for this call.
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            guard sqlite_nio_sqlite3_bind_text(statement, Int32(index + 1), value, -1, transient) == SQLITE_OK else {
                return nil
            }
        }
        var rows: [SQLiteKeptRow] = []
        while true {
            switch sqlite_nio_sqlite3_step(statement) {
            case SQLITE_ROW: rows.append(SQLiteKeptRow(columns: columns, values: Self.values(of: statement, columns)))
            case SQLITE_DONE: return rows
            default: return nil
            }
        }
    }

    /// The row's values by position, each as SQLite stored it.
    private static func values(of statement: OpaquePointer, _ columns: SQLiteKeptColumns) -> [SQLiteKeptValue] {
        var values: [SQLiteKeptValue] = []
        values.reserveCapacity(columns.names.count)
        for index in 0..<Int32(columns.names.count) {
            switch sqlite_nio_sqlite3_column_type(statement, index) {
            case SQLITE_INTEGER: values.append(.integer(sqlite_nio_sqlite3_column_int64(statement, index)))
            case SQLITE_FLOAT: values.append(.real(sqlite_nio_sqlite3_column_double(statement, index)))
            case SQLITE_TEXT:
                let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
                let bytes = sqlite_nio_sqlite3_column_text(statement, index)
                let text = bytes.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) }
                values.append(.text(text ?? ""))
            case SQLITE_BLOB:
                let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
                let bytes = sqlite_nio_sqlite3_column_blob(statement, index)
                values.append(.blob(bytes.map { Data(bytes: $0, count: count) } ?? Data()))
            default: values.append(.null)
            }
        }
        return values
    }

    private func prepared(_ sql: String) -> (OpaquePointer, SQLiteKeptColumns)? {
        if let kept = statements[sql] { return kept }
        var statement: OpaquePointer?
        let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
        guard sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil) == SQLITE_OK,
            let statement
        else {
            sqlite_nio_sqlite3_finalize(statement)
            return nil
        }
        let count = sqlite_nio_sqlite3_column_count(statement)
        let names = (0..<count).map { String(cString: sqlite_nio_sqlite3_column_name(statement, $0)) }
        let kept = (statement, SQLiteKeptColumns(names))
        statements[sql] = kept
        return kept
    }

    func close() {
        for (statement, _) in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        sqlite_nio_sqlite3_close(handle)
        handle = nil
    }
}
