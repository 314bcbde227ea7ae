// The caller-miss statement (58 columns over five tables), on one seeded database, in one process, each variant
// decoding every column of the row into a typed Swift value (the column's declared type, NULL allowed), as
// SQLCallerRecordStore's decode does: CPU microseconds per lookup (issue 43 item 2).
//   sqlite-statements DATABASE SQL_FILE KEYS_FILE ITERATIONS  (SQL_FILE.names and SQL_FILE.types beside it)
import Foundation
import GRDB
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO
import VaporCSQLite

func cpuNanoseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

let args = CommandLine.arguments
let path = args[1]
let sql = try String(contentsOfFile: args[2], encoding: .utf8)
let names = try String(contentsOfFile: args[2] + ".names", encoding: .utf8).split(separator: "\n").map(String.init)
/// One letter a column: T text, I integer, R real, B blob (the schema's declared type).
let typesText = try String(contentsOfFile: args[2] + ".types", encoding: .utf8)
let types = Array(typesText.trimmingCharacters(in: .whitespacesAndNewlines))
let keys = try String(contentsOfFile: args[3], encoding: .utf8).split(separator: "\n").map(String.init)
let iterations = Int(args[4]) ?? 20000
precondition(names.count == types.count)

/// One decoded column (what a record's stored property holds).
enum Value { case text(String?), integer(Int64?), real(Double?), blob([UInt8]?) }
/// The decoded row; every variant fills one and folds it into `sink` so nothing is optimized away.
nonisolated(unsafe) var sink = 0
func consume(_ values: [Value]) {
    for value in values {
        switch value {
        case .text(let s): sink &+= s?.utf8.count ?? 0
        case .integer(let i): sink &+= Int(truncatingIfNeeded: i ?? 0)
        case .real(let d): sink &+= Int(d ?? 0)
        case .blob(let b): sink &+= b?.count ?? 0
        }
    }
}

func report(_ name: String, _ body: () async throws -> Void) async throws {
    for _ in 0..<500 { try await body() }  // warm
    let start = cpuNanoseconds()
    for _ in 0..<iterations { try await body() }
    let perCall = (cpuNanoseconds() - start) / Double(iterations)
    print(String(format: "%8.1f µs  %@", perCall / 1000, name))
}

nonisolated(unsafe) var i = 0
func nextKey() -> String {
    i += 1
    return keys[i % keys.count]
}

// 1. Today's path: SQLKit over SQLiteKit over sqlite-nio (prepare, bind, step, finalize on sqlite-nio's thread
//    pool), then every column decoded by name through SQLKit's `SQLRow.decode(column:as:)`.
let threads = NIOThreadPool(numberOfThreads: 1)
threads.start()
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let nio = try await SQLiteNIO.SQLiteConnection.open(
    storage: .file(path: path), threadPool: threads, on: group.next()
).get()
let kit: any SQLDatabase = nio.sql()
func decodeByName(_ row: any SQLRow) throws -> [Value] {
    try zip(names, types).map { name, type in
        switch type {
        case "T": .text(try row.decode(column: name, as: String?.self))
        case "I": .integer(try row.decode(column: name, as: Int64?.self))
        case "R": .real(try row.decode(column: name, as: Double?.self))
        default: .blob(try row.decode(column: name, as: [UInt8]?.self))
        }
    }
}
try await report("today: SQLKit raw(...).first() over SQLiteKit, decoded by name") {
    let row = try await kit.raw("\(unsafeRaw: sql.replacingOccurrences(of: "?", with: "'\(nextKey())'"))").first()
    consume(try row.map(decodeByName) ?? [])
}
// 1b. The same with the key bound (as the server binds it) instead of spliced into the text.
try await report("today, bound: SQLKit raw with a bind, first(), decoded by name") {
    var query = SQLQueryString(sql.split(separator: "?", omittingEmptySubsequences: false)[0].description)
    query.appendInterpolation(bind: nextKey())
    let row = try await kit.raw(query).first()
    consume(try row.map(decodeByName) ?? [])
}

// 2. sqlite-nio's query (still prepared every call, still the hop) with the row decoded by position.
func decodeByPosition(_ row: SQLiteRow) -> [Value] {
    var values: [Value] = []
    values.reserveCapacity(types.count)
    for (column, type) in zip(row.columns, types) {
        switch (type, column.data) {
        case ("T", .text(let s)): values.append(.text(s))
        case ("I", .integer(let n)): values.append(.integer(Int64(n)))
        case ("R", .float(let d)): values.append(.real(d))
        case ("R", .integer(let n)): values.append(.real(Double(n)))
        case ("B", .blob(let b)): values.append(.blob(Array(b.readableBytesView)))
        case (_, .null): values.append(type == "T" ? .text(nil) : type == "I" ? .integer(nil) : .real(nil))
        default: values.append(.text(column.data.string))
        }
    }
    return values
}
try await report("sqlite-nio query (prepared each call, thread-pool hop), decoded by position") {
    let rows = try await nio.query(sql, [SQLiteData.text(nextKey())]).get()
    if let row = rows.first { consume(decodeByPosition(row)) }
}
try await nio.close().get()

// 3. The same SQLite copy (sqlite-nio's VaporCSQLite), a read-only connection of its own, the statement kept
//    and reset, run on the caller's thread, decoded by position.
var handle: OpaquePointer?
precondition(sqlite_nio_sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK)
var kept: OpaquePointer?
precondition(sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &kept, nil) == SQLITE_OK)
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
func readKept(_ key: String) -> [Value]? {
    defer { sqlite_nio_sqlite3_reset(kept) }  // no clear_bindings: in sqlite-nio's SQLite it expires the statement
    _ = sqlite_nio_sqlite3_bind_text(kept, 1, key, -1, transient)
    guard sqlite_nio_sqlite3_step(kept) == SQLITE_ROW else { return nil }
    var values: [Value] = []
    values.reserveCapacity(types.count)
    for (index, type) in types.enumerated() {
        let column = Int32(index)
        let isNull = sqlite_nio_sqlite3_column_type(kept, column) == SQLITE_NULL
        switch type {
        case "T":
            values.append(.text(isNull ? nil : String(cString: sqlite_nio_sqlite3_column_text(kept, column))))
        case "I": values.append(.integer(isNull ? nil : sqlite_nio_sqlite3_column_int64(kept, column)))
        case "R": values.append(.real(isNull ? nil : sqlite_nio_sqlite3_column_double(kept, column)))
        default:
            let count = Int(sqlite_nio_sqlite3_column_bytes(kept, column))
            let bytes = sqlite_nio_sqlite3_column_blob(kept, column)
            values.append(.blob(isNull ? nil : Array(UnsafeRawBufferPointer(start: bytes, count: count))))
        }
    }
    return values
}
try await report("sqlite-nio's SQLite, kept statement, on the caller's thread, decoded by position") {
    consume(readKept(nextKey()) ?? [])
}
try await report("  (the same kept statement: bind, step and reset only, no column read)") {
    _ = sqlite_nio_sqlite3_bind_text(kept, 1, nextKey(), -1, transient)
    sink &+= Int(sqlite_nio_sqlite3_step(kept))
    sqlite_nio_sqlite3_reset(kept)
}
sqlite_nio_sqlite3_finalize(kept)
sqlite_nio_sqlite3_close(handle)

// 3b. What the server did after item 2: Gatehouse's SQLiteKeptReads (the same kept statement on the caller's thread,
//     values by position) with every column then found by name through SQLiteKeptRow, as the stores decode.
let keptReads = SQLiteKeptReads(path: path, capacity: 1)
try await report("Gatehouse SQLiteKeptReads + SQLiteKeptRow, decoded by name (the server's path before 43 items 2-3)") {
    consume(try keptReads.rows(sql, binds: [nextKey()])?.first.map(decodeByName) ?? [])
}
// 3c. Issue 43 items 2-3: the same kept rows read by position (what SQLiteKeptRow's SQLRowCells conformance does
//     for the caller store's cursor), each value typed from its case instead of found by name and cast.
func decodeKeptByPosition(_ row: SQLiteKeptRow) -> [Value] {
    var values: [Value] = []
    values.reserveCapacity(types.count)
    for (value, type) in zip(row.values, types) {
        switch (type, value) {
        case (_, .null): values.append(type == "T" ? .text(nil) : type == "I" ? .integer(nil) : .real(nil))
        case ("T", .text(let s)): values.append(.text(s))
        case ("I", .integer(let n)): values.append(.integer(n))
        case ("R", .real(let d)): values.append(.real(d))
        case ("R", .integer(let n)): values.append(.real(Double(n)))
        case ("B", .blob(let b)): values.append(.blob([UInt8](b)))
        default: preconditionFailure("column of type \(type) holds \(value)")
        }
    }
    return values
}
try await report("Gatehouse SQLiteKeptReads + SQLiteKeptRow, decoded by position (the server's path now)") {
    consume(keptReads.rows(sql, binds: [nextKey()])?.first.map(decodeKeptByPosition) ?? [])
}
keptReads.close()

// 4. GRDB: a DatabasePool, the statement kept per connection (cachedStatement), decoded by position.
var configuration = Configuration()
configuration.readonly = true
let pool = try DatabasePool(path: path, configuration: configuration)
func readGRDB(_ statement: Statement, _ key: String) throws -> [Value]? {
    guard let row = try Row.fetchOne(statement, arguments: [key]) else { return nil }
    var values: [Value] = []
    values.reserveCapacity(types.count)
    for (index, type) in types.enumerated() {
        switch type {
        case "T": values.append(.text(row[index] as String?))
        case "I": values.append(.integer(row[index] as Int64?))
        case "R": values.append(.real(row[index] as Double?))
        default: values.append(.blob((row[index] as Data?).map { Array($0) }))
        }
    }
    return values
}
try await report("GRDB sync read, cachedStatement, decoded by position") {
    let key = nextKey()
    consume(try pool.read { db in try readGRDB(try db.cachedStatement(sql: sql), key) } ?? [])
}
try await report("GRDB async read, cachedStatement, decoded by position") {
    let key = nextKey()
    consume(try await pool.read { db in try readGRDB(try db.cachedStatement(sql: sql), key) } ?? [])
}
FileHandle.standardError.write("\(sink)\n".data(using: .utf8)!)
try await group.shutdownGracefully()
try await threads.shutdownGracefully()
