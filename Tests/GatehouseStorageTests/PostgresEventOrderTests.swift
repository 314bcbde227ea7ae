import Foundation
import PostgresKit
import SQLKit
import Testing
@testable import GatehouseCore
@testable import GatehouseStorage
import GatehouseTestSupport

/// PostgreSQL only: a follower of the event stream never passes an event that commits late. Two transactions
/// insert events A then B; B tries to commit first. A reader following with a cursor must list A. (SQLite has one
/// writer, so two inserts cannot overlap there.) Fails, never skips, without the test cluster.
@Suite("PostgreSQL event order", .timeLimit(.minutes(2)))
struct PostgresEventOrderTests {
    static func event(_ id: String) -> GatehouseEvent {
        GatehouseEvent(id: id, type: .adminWrite, time: TestTime.at(10), node: "node-a:8080")
    }

    @Test func aFollowerSeesAnEventWhoseTransactionCommitsAfterALaterOnes() async throws {
        let url = try await PostgresTestDatabase.create()
        let storage = try await PostgresStorage.open(url: url, logger: StorageBackends.logger)
        do {
            let events = try #require(storage.events)
            let start = try #require(try await events.append(Self.event("before"), deliveries: []))
            try await PostgresTestDatabase.withAdminConnection(url) { first in
                try await PostgresTestDatabase.withAdminConnection(url) { second in
                    try await first.raw("BEGIN").run()
                    let a = try #require(
                        try await SQLEventStore(database: first, errors: .postgres).append(
                            Self.event("A"), deliveries: []))
                    #expect(a.sequence > start.sequence)
                    // B, in a transaction of its own, inserts after A and commits (or waits for A, if it must).
                    let b = Task {
                        try await second.raw("BEGIN").run()
                        let stored = try await SQLEventStore(database: second, errors: .postgres).append(
                            Self.event("B"), deliveries: [])
                        try await second.raw("COMMIT").run()
                        return stored
                    }
                    // Long enough for B to commit if nothing holds it back.
                    try await Task.sleep(for: .seconds(1))
                    let early = try await events.list(EventQuery(after: start.sequence, limit: 10))
                    try await first.raw("COMMIT").run()
                    let stored = try #require(try await b.value)
                    #expect(stored.sequence > a.sequence)
                    let cursor = early.last?.sequence ?? start.sequence
                    let late = try await events.list(EventQuery(after: cursor, limit: 10))
                    // Every event once, in order, whatever the reader saw while A was uncommitted.
                    #expect((early + late).map(\.id) == ["A", "B"])
                    #expect(try await events.latestSequence() == stored.sequence)
                }
            }
        } catch {
            try? await storage.shutdown()
            try? await PostgresTestDatabase.drop(url)
            throw error
        }
        try await storage.shutdown()
        try await PostgresTestDatabase.drop(url)
    }
}
