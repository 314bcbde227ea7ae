import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SQLKit
import SQLiteKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Issue 11, item 2: reads go to SQLite's read-only connections, writes and sessions to the one writer, and a
/// read never waits behind a write.
@Suite struct SQLiteReadRoutingTests {
    /// Counts the statements that reach a database.
    struct Counting: SQLDatabase {
        let base: any SQLDatabase
        let count = NIOLockedValueBox(0)
        var logger: Logger { base.logger }
        var eventLoop: any EventLoop { base.eventLoop }
        var version: (any SQLDatabaseReportedVersion)? { base.version }
        var dialect: any SQLDialect { base.dialect }
        var queryLogLevel: Logger.Level? { base.queryLogLevel }
        func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
            -> EventLoopFuture<Void>
        {
            count.withLockedValue { $0 += 1 }
            return base.execute(sql: query, onRow)
        }
        func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
            count.withLockedValue { $0 += 1 }
            return try await base.withSession(closure)
        }
        var statements: Int { count.withLockedValue { $0 } }
    }

    /// A migrated file with a writer and two readers, each wrapped in a counter.
    struct Rig {
        let path: String
        let writerConnection: SQLiteConnection
        let readerConnections: [SQLiteConnection]
        let writer: Counting
        let readers: [Counting]
        var routing: SQLiteReadRouting { SQLiteReadRouting(writer: writer, readers: readers) }
        var readStatements: Int { readers.map(\.statements).reduce(0, +) }

        static func make() async throws -> Rig {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "gatehouse-routing-\(UUID().uuidString).sqlite"
            ).path
            let logger = Logger(label: "routing-test")
            let writerConnection = try await SQLiteDatabaseFactory.open(path: path, logger: logger)
            try await writerConnection.sql().raw("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                .run()
            let readerConnections = try await SQLiteDatabaseFactory.openReaders(path: path, logger: logger)
            return Rig(
                path: path, writerConnection: writerConnection, readerConnections: readerConnections,
                writer: Counting(base: writerConnection.sql()),
                readers: readerConnections.map { Counting(base: $0.sql()) })
        }

        func close() async {
            for reader in readerConnections { try? await reader.close() }
            try? await writerConnection.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    @Test func readsGoToTheReadersInTurnAndEverythingElseToTheWriter() async throws {
        let rig = try await Rig.make()
        let db = rig.routing
        try await db.insert(into: "notes").columns("id", "body").values(1, "one").run()
        #expect(rig.writer.statements == 1 && rig.readStatements == 0)

        let read = try await db.select().column("body").from("notes").where("id", .equal, 1).first(
            decodingColumn: "body", as: String.self)
        #expect(read == "one")
        let raw = try await db.raw("SELECT count(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self)
        #expect(raw == 1)
        #expect(rig.writer.statements == 1)
        #expect(rig.readers.map(\.statements) == [1, 1])

        // Raw statements that write, or read back what they wrote, and pragmas are the writer's.
        let returned = try await db.raw("UPDATE notes SET body = 'uno' WHERE id = 1 RETURNING body").first(
            decodingColumn: "body", as: String.self)
        #expect(returned == "uno")
        _ = try await db.raw("PRAGMA data_version").all()
        try await db.update("notes").set("body", to: "one").where("id", .equal, 1).run()
        try await db.delete(from: "notes").where("id", .equal, 2).run()
        #expect(rig.writer.statements == 5)
        #expect(rig.readStatements == 2)

        // A session (a migration's transaction) stays on the writer, reads included.
        // Called as SQLKit calls it: a witness whose closure type drifted from SQLKit's (as it did under
        // `NonisolatedNonsendingByDefault`) would silently lose to SQLKit's default, which hands over `self`.
        let erased: any SQLDatabase = db
        let inSession = try await erased.withSession { session in
            #expect(!(session is SQLiteReadRouting))
            return try await session.select().column("body").from("notes").first(
                decodingColumn: "body", as: String.self)
        }
        #expect(inSession == "one")
        #expect(rig.readStatements == 2)
        await rig.close()
    }

    @Test func rawSQLIsAReadOnlyWhenItSelectsWithoutReturning() async throws {
        let rig = try await Rig.make()
        func isRead(_ sql: String) -> Bool {
            SQLiteReadRouting.isRead(SQLQueryString(sql), serializingWith: rig.writer)
        }
        #expect(isRead("SELECT 1"))
        #expect(isRead("\n  select id FROM notes"))
        #expect(!isRead("INSERT INTO notes (id, body) VALUES (1, 'x') RETURNING id"))
        #expect(!isRead("UPDATE notes SET body = 'x' returning body"))
        #expect(!isRead("WITH x AS (SELECT 1) DELETE FROM notes"))
        #expect(!isRead("PRAGMA data_version"))
        #expect(!isRead("BEGIN IMMEDIATE"))
        await rig.close()
    }

    @Test func aReadAfterAWriteSeesIt() async throws {
        let rig = try await Rig.make()
        let db = rig.routing
        for id in 1...20 {
            try await db.insert(into: "notes").columns("id", "body").values(id, "note \(id)").run()
            let count = try await db.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n").from("notes")
                .first(decodingColumn: "n", as: Int.self)
            #expect(count == id)
        }
        #expect(rig.readStatements == 20)
        await rig.close()
    }

    @Test func aReaderCannotWrite() async throws {
        let rig = try await Rig.make()
        await #expect(throws: (any Error).self) {
            try await rig.readerConnections[0].sql().raw("INSERT INTO notes (id, body) VALUES (9, 'no')").run()
        }
        let count = try await rig.writer.raw("SELECT count(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self)
        #expect(count == 0)
        await rig.close()
    }

    @Test func aReadDoesNotWaitForAnOpenWriteTransaction() async throws {
        let rig = try await Rig.make()
        let db = rig.routing
        try await db.insert(into: "notes").columns("id", "body").values(1, "committed").run()
        let (holding, hold) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        // The writer holds a write transaction open (as a slow write would) until the read below has answered.
        let writing = Task {
            try await rig.writer.withSession { session in
                try await session.raw("BEGIN IMMEDIATE").run()
                try await session.raw("INSERT INTO notes (id, body) VALUES (2, 'uncommitted')").run()
                hold.yield()
                for await _ in released { break }
                try await session.raw("COMMIT").run()
            }
        }
        for await _ in holding { break }
        let bodies = try await db.select().column("body").from("notes").orderBy("id").all(
            decodingColumn: "body", as: String.self)
        #expect(bodies == ["committed"])
        release.yield()
        try await writing.value
        let after = try await db.select().column("body").from("notes").orderBy("id").all(
            decodingColumn: "body", as: String.self)
        #expect(after == ["committed", "uncommitted"])
        await rig.close()
    }

    @Test func theStorageOpensReadersBesideTheWriter() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-routing-\(UUID().uuidString).sqlite"
        ).path
        // Removed even when an expectation throws (after the shutdown below, when none does).
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let storage = try await SQLStorage.openSQLite(path: path, logger: Logger(label: "routing-test"))
        let app = AppRecord(
            id: "1234567890123456", secret: "s", clientToken: "c", name: "Routed", redirectURIs: [],
            createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await storage.apps.create(app)
        #expect(try await storage.apps.find(id: app.id)?.name == "Routed")
        #expect(SQLiteDatabaseFactory.readerCount >= 2)
        try await storage.shutdown()
    }
}
