import Foundation
import Logging
import SQLKit
import SQLiteKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Issue 43 item 2: the caller's lookup on SQLite keeps its statement and reads on the caller's thread, through
/// sqlite-nio's own SQLite, and declines (nil) whenever the routed path should answer instead.
@Suite struct SQLiteKeptReadsTests {
    /// A migrated-enough file: one table holding every kind of value SQLite stores, written by the writer.
    struct Rig {
        let folder: ScratchDirectory
        let path: String
        let writer: SQLiteConnection

        static func make() async throws -> Rig {
            let folder = ScratchDirectory("kept-reads")
            let path = folder.url.appendingPathComponent("kept.sqlite").path
            let writer = try await SQLiteDatabaseFactory.open(path: path, logger: Logger(label: "kept-reads-test"))
            let db = writer.sql()
            try await db.raw(
                "CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER, flag INTEGER, x REAL, body BLOB, note TEXT)"
            ).run()
            try await db.raw(
                "INSERT INTO things VALUES ('a', 1800000000, 1, 2.5, X'00FF10', 'héllo'), ('b', NULL, 0, NULL, NULL, NULL)"
            ).run()
            return Rig(folder: folder, path: path, writer: writer)
        }

        func close() async throws {
            try await writer.close()
            folder.remove()
        }
    }

    static let select = "SELECT id, n, flag, x, body, note FROM things WHERE id = ?"

    @Test func everyStoredKindDecodesAsTheStoresReadIt() async throws {
        let rig = try await Rig.make()
        let reads = SQLiteKeptReads(path: rig.path, capacity: 2)
        let a = try #require(reads.rows(Self.select, binds: ["a"])?.first)
        #expect(a.allColumns == ["id", "n", "flag", "x", "body", "note"])
        #expect(try a.decode(column: "id", as: String.self) == "a")
        #expect(try a.decode(column: "n", as: Int64.self) == 1_800_000_000)
        #expect(try a.decode(column: "n", as: Int64?.self) == 1_800_000_000)
        #expect(try a.decode(column: "n", as: Int.self) == 1_800_000_000)
        #expect(try a.decode(column: "flag", as: Bool.self) == true)
        #expect(try a.decode(column: "x", as: Double.self) == 2.5)
        #expect(try a.decode(column: "body", as: Data?.self) == Data([0x00, 0xFF, 0x10]))
        #expect(try a.decode(column: "note", as: String?.self) == "héllo")
        #expect(try a.decodeNil(column: "note") == false)
        // RowReader's dates: seconds since 1970 stored as integers.
        #expect(try RowReader(a).date("n") == Date(timeIntervalSince1970: 1_800_000_000))

        let b = try #require(reads.rows(Self.select, binds: ["b"])?.first)
        #expect(try b.decode(column: "flag", as: Bool.self) == false)
        #expect(try b.decodeNil(column: "n"))
        #expect(try b.decode(column: "n", as: Int64?.self) == nil)
        #expect(try b.decode(column: "body", as: Data?.self) == nil)
        #expect(try b.decode(column: "note", as: String?.self) == nil)
        #expect(try RowReader(b).optionalDate("n") == nil)
        #expect(reads.rows(Self.select, binds: ["none"])?.isEmpty == true, "no row: empty, not declined")
        reads.close()
        try await rig.close()
    }

    @Test func aWrongTypeOrAMissingColumnThrowsAsSQLiteKitDoes() async throws {
        let rig = try await Rig.make()
        let reads = SQLiteKeptReads(path: rig.path, capacity: 1)
        let a = try #require(reads.rows(Self.select, binds: ["a"])?.first)
        #expect(throws: DecodingError.self) { try a.decode(column: "note", as: Int64.self) }
        #expect(throws: DecodingError.self) { try a.decode(column: "id", as: Data.self) }
        #expect(throws: DecodingError.self) { try a.decode(column: "nope", as: String.self) }
        #expect(a.contains(column: "note") && !a.contains(column: "nope"))
        let b = try #require(reads.rows(Self.select, binds: ["b"])?.first)
        #expect(throws: DecodingError.self) { try b.decode(column: "note", as: String.self) }
        reads.close()
        try await rig.close()
    }

    @Test func aReadSeesEveryWriteThatReturnedBeforeIt() async throws {
        let rig = try await Rig.make()
        let reads = SQLiteKeptReads(path: rig.path, capacity: 1)
        #expect(reads.rows(Self.select, binds: ["c"])?.count == 0)
        try await rig.writer.sql().raw("INSERT INTO things (id, note) VALUES ('c', 'new')").run()
        let c = try #require(reads.rows(Self.select, binds: ["c"])?.first, "the same kept statement, reset")
        #expect(try c.decode(column: "note", as: String.self) == "new")
        try await rig.writer.sql().raw("UPDATE things SET note = 'newer' WHERE id = 'c'").run()
        #expect(try reads.rows(Self.select, binds: ["c"])?.first?.decode(column: "note", as: String.self) == "newer")
        reads.close()
        try await rig.close()
    }

    @Test func itDeclinesWhenClosedFullOrGivenSQLItCannotRun() async throws {
        let rig = try await Rig.make()
        #expect(SQLiteKeptReads(path: rig.path, capacity: 0).rows(Self.select, binds: ["a"]) == nil, "no room")
        let missing = rig.folder.url.appendingPathComponent("missing.sqlite").path
        #expect(SQLiteKeptReads(path: missing, capacity: 1).rows(Self.select, binds: ["a"]) == nil, "no file")
        let reads = SQLiteKeptReads(path: rig.path, capacity: 1)
        #expect(reads.rows("SELECT nothing FROM nowhere WHERE id = ?", binds: ["a"]) == nil, "cannot prepare")
        #expect(reads.rows("INSERT INTO things (id) VALUES (?)", binds: ["z"]) == nil, "read-only: a write fails")
        #expect(reads.rows(Self.select, binds: ["a"])?.count == 1, "a failed read gives its connection up, not room")
        reads.close()
        #expect(reads.rows(Self.select, binds: ["a"]) == nil, "closed")
        try await rig.close()
    }

    @Test func anOpenedSQLiteStorageReadsItsCallersThroughKeptStatementsUntilShutdown() async throws {
        let backend = StorageBackends.sqlite(fromTemplate: true)
        let storage = try await backend.openWithoutFeed()
        let store = try #require(storage.callerRecords as? SQLCallerRecordStore)
        let routing = try #require(store.context.db as? SQLiteReadRouting)
        let statement = SQLStatementText(binds: 1) { _ in
            SQLQueryString("SELECT COUNT(*) AS n FROM tokens WHERE token_hash <> \(bind: "")")
        }
        #expect(try routing.rowsNow(statement, ["x"])?.first?.decode(column: "n", as: Int.self) == 0)
        try await storage.shutdown()
        #expect(routing.rowsNow(statement, ["x"]) == nil, "shut down: the kept connections are closed")
        try await backend.cleanup()
    }

    @Test func theRoutingReadsNowWithoutAStatementOnItsReaders() async throws {
        let rig = try await Rig.make()
        let readerConnections = try await SQLiteDatabaseFactory.openReaders(
            path: rig.path, logger: Logger(label: "kept-reads-test"))
        let readers = readerConnections.map { SQLiteReadRoutingTests.Counting(base: $0.sql()) }
        let kept = SQLiteKeptReads(path: rig.path, capacity: 1)
        let routing = SQLiteReadRouting(writer: rig.writer.sql(), readers: readers, kept: kept)
        let statement = SQLStatementText(binds: 1) { _ in
            SQLQueryString("SELECT id, note FROM things WHERE id = \(bind: "")")
        }
        let rows = try #require(routing.rowsNow(statement, ["a"]))
        #expect(try rows.first?.decode(column: "note", as: String.self) == "héllo")
        #expect(readers.map(\.statements).reduce(0, +) == 0)
        let unkept = SQLiteReadRouting(writer: rig.writer.sql(), readers: readers)
        #expect(unkept.rowsNow(statement, ["a"]) == nil, "without kept reads every read is routed")
        kept.close()
        for reader in readerConnections { try await reader.close() }
        try await rig.close()
    }
}
