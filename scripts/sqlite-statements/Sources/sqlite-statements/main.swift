// The caller-miss statement through sqlite-nio (prepared and thrown away on every call, as Gatehouse runs it
// today) and through GRDB (prepared once per connection with cachedStatement, and prepared every call), on the
// same seeded database: CPU nanoseconds per lookup.
import Foundation
import GRDB
import SQLiteNIO

func cpuNanoseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

let args = CommandLine.arguments
let path = args[1]
let sql = try String(contentsOfFile: args[2], encoding: .utf8)
let keys = try String(contentsOfFile: args[3], encoding: .utf8).split(separator: "\n").map(String.init)
let iterations = Int(args[4]) ?? 20000
var sink = 0

func report(_ name: String, _ body: () async throws -> Void) async throws {
    for _ in 0..<500 { try await body() }  // warm
    let start = cpuNanoseconds()
    for _ in 0..<iterations { try await body() }
    let perCall = (cpuNanoseconds() - start) / Double(iterations)
    print(String(format: "%8.0f ns  %@", perCall, name))
}

// sqlite-nio, the way SQLKit's driver runs each statement: prepare, bind, step, finalize.
let nio: SQLiteNIO.SQLiteConnection = try await SQLiteNIO.SQLiteConnection.open(storage: .file(path: path)).get()
var i = 0
try await report("sqlite-nio query (prepare, run, finalize each call; rows decoded to SQLiteData)") {
    i += 1
    let rows: [SQLiteRow] = try await nio.query(sql, [SQLiteData.text(keys[i % keys.count])])
    for row in rows { for column in row.columns { if case .text(let s) = column.data { sink &+= s.utf8.count } } }
}
try await nio.close().get()

var configuration = Configuration()
configuration.readonly = true
let pool = try DatabasePool(path: path, configuration: configuration)
/// The caller's row for `key` through `statement`, read as the server would read it: every text column.
func readCaller(_ statement: Statement, _ key: String) throws -> Int {
    var n = 0
    if let row = try Row.fetchOne(statement, arguments: [key]) {
        for (_, value) in row { if let s = String.fromDatabaseValue(value) { n &+= s.utf8.count } }
    }
    return n
}

@MainActor func nextKey() -> String {
    i += 1
    return keys[i % keys.count]
}

try await report("GRDB async read, cachedStatement (prepared once per connection)") {
    let key = nextKey()
    sink &+= try await pool.read { db in try readCaller(try db.cachedStatement(sql: sql), key) }
}
try await report("GRDB async read, makeStatement (prepared every call)") {
    let key = nextKey()
    sink &+= try await pool.read { db in try readCaller(try db.makeStatement(sql: sql), key) }
}
try await report("GRDB sync read, cachedStatement (no hop to GRDB's queue)") {
    let key = nextKey()
    sink &+= try pool.read { db in try readCaller(try db.cachedStatement(sql: sql), key) }
}
FileHandle.standardError.write("\(sink)\n".data(using: .utf8)!)
