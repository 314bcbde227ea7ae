import Foundation
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport
import SQLKit
import SQLiteKit
import SQLiteNIO
import Testing

/// Migration 22: on SQLite an event's position is never drawn twice, so a reset (or retention) that empties
/// `events` does not send the next event back to position 1 behind a follower's cursor.
@Suite struct EventPositionMigrationTests {
    @Test func eventsFromBeforeKeepTheirPositionsAndAnEmptiedTableKeepsCounting() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-v21-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: StorageBackends.logger)
        let db = connection.sql()
        try await SQLMigrator.migrate(db, migrations: SQLMigrator.all.filter { $0.version < 22 })
        for (seq, id) in [(1, "e1"), (2, "e2"), (7, "e7")] {
            try await db.insert(into: "events").columns("seq", "id", "type", "time", "node", "details")
                .values(seq, id, "admin.write", 1_800_000_000 + seq, "n", "{}").run()
        }
        try await SQLStorage.migrate(db)
        #expect(try await SQLStorage.appliedMigrations(db) == SQLMigrator.all.map(\.version))
        let events = try #require(SQLStorage.make(database: db).events)
        #expect(try await events.list(EventQuery(limit: 10)).map(\.sequence) == [1, 2, 7])
        #expect(try await events.list(EventQuery(limit: 10)).map(\.id) == ["e1", "e2", "e7"])

        try await db.delete(from: "events").run()
        let next = try await events.append(
            GatehouseEvent(id: "e8", type: .adminWrite, time: TestTime.at(8), node: "n"), deliveries: [])
        #expect(next?.sequence == 8)
        #expect(try await events.latestSequence() == 8)
        try await connection.close()
    }
}
