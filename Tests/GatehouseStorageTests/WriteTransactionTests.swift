import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import GatehouseCore
@testable import GatehouseStorage
import GatehouseTestSupport

/// Issue 11, item 5: a write route's writes commit together (one fsync on SQLite), on both backends; the
/// SQLite writer is held for the whole transaction, so another request's write never lands inside it.
@Suite struct WriteTransactionTests {
    struct Planned: Error {}

    @Test func writesCommitTogetherOrNotAtAll() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app())
            try await storage.users.create(Fixture.user("1"))
            try await storage.codes.insert(Fixture.code("c1", app: "100000000000001", user: "1"))
            try await storage.codes.insert(Fixture.code("c2", app: "100000000000001", user: "1"))

            // A body that throws after both writes leaves neither.
            await #expect(throws: Planned.self) {
                try await storage.transaction { tx in
                    #expect(try await tx.codes.consume(id: "c1", at: TestTime.at(1)))
                    try await tx.tokens.insert(Fixture.token("t1", app: "100000000000001", user: "1", codeID: "c1"))
                    throw Planned()
                }
            }
            #expect(try await storage.codes.find(codeHash: "codehash-c1")?.usedAt == nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t1") == nil)

            // A body that returns commits both, and its result comes back.
            let minted = try await storage.transaction { tx -> String? in
                guard try await tx.codes.consume(id: "c2", at: TestTime.at(2)) else { return nil }
                try await tx.tokens.insert(Fixture.token("t2", app: "100000000000001", user: "1", codeID: "c2"))
                return "t2"
            }
            #expect(minted == "t2")
            #expect(try await storage.codes.find(codeHash: "codehash-c2")?.usedAt == TestTime.at(2))
            #expect(try await storage.tokens.find(tokenHash: "hash-t2")?.codeID == "c2")

            // A consumed code stays consumed: the second transaction finds it used and writes nothing.
            let again = try await storage.transaction { tx -> String? in
                guard try await tx.codes.consume(id: "c2", at: TestTime.at(3)) else { return nil }
                try await tx.tokens.insert(Fixture.token("t3", app: "100000000000001", user: "1", codeID: "c2"))
                return "t3"
            }
            #expect(again == nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t3") == nil)
        }
    }

    @Test func anotherWriteWaitsForTheTransactionAndIsNotRolledBackWithIt() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app())
            try await storage.users.create(Fixture.user("1"))
            let (opened, open) = AsyncStream.makeStream(of: Void.self)
            let (proceed, go) = AsyncStream.makeStream(of: Void.self)
            let transaction = Task {
                try await storage.transaction { tx in
                    try await tx.tokens.insert(Fixture.token("inside", app: "100000000000001", user: "1"))
                    open.yield()
                    for await _ in proceed { break }
                    throw Planned()
                }
            }
            for await _ in opened { break }
            // Written while the transaction is open, from outside it.
            let outside = Task {
                try await storage.tokens.insert(Fixture.token("outside", app: "100000000000001", user: "1"))
            }
            go.yield()
            await #expect(throws: Planned.self) { try await transaction.value }
            try await outside.value
            #expect(try await storage.tokens.find(tokenHash: "hash-inside") == nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-outside") != nil)
        }
    }

    /// Records what a transaction announces, and when.
    final class Announcements: CacheInvalidationTarget, TokenInvalidationPublisher, @unchecked Sendable {
        let log = NIOLockedValueBox<[String]>([])
        func invalidate(_ event: TokenInvalidation) { log.withLockedValue { $0.append("local \(event)") } }
        func setEnabled(_ enabled: Bool) {}
        func publish(_ event: TokenInvalidation) async { log.withLockedValue { $0.append("published \(event)") } }
        var published: [String] { log.withLockedValue { $0 }.filter { $0.hasPrefix("published") } }
    }

    @Test func aGrantChangeIsAnnouncedToOtherNodesOnlyOnceCommitted() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-tx-\(UUID().uuidString).sqlite"
        ).path
        // Removed even when an expectation throws (after the shutdown below, when none does).
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let storage = try await SQLStorage.openSQLite(path: path, logger: StorageBackends.logger)
        try await storage.apps.create(Fixture.app())
        try await storage.users.create(Fixture.user("1"))
        let announcements = Announcements()
        let transactions = try #require(storage.writes as? SQLWriteTransactions)
        var configured = transactions
        configured.announce = (announcements, announcements)
        let announcing = configured

        let (saved, didSave) = AsyncStream.makeStream(of: Void.self)
        let (proceed, go) = AsyncStream.makeStream(of: Void.self)
        let committing = Task {
            try await announcing.write { tx in
                try await tx.grants.save(
                    Fixture.grant(app: "100000000000001", user: "1", granted: ["public_profile", "email"]))
                didSave.yield()
                for await _ in proceed { break }
            }
        }
        for await _ in saved { break }
        #expect(announcements.published.isEmpty)
        go.yield()
        try await committing.value
        #expect(
            announcements.published == ["published \(TokenInvalidation.appUser(appID: "100000000000001", userID: "1"))"]
        )
        #expect(
            try await storage.grants.find(appID: "100000000000001", userID: "1")?.granted == [
                "public_profile", "email",
            ])

        // A rolled-back change is announced to nobody.
        await #expect(throws: Planned.self) {
            try await announcing.write { tx in
                try await tx.grants.delete(appID: "100000000000001", userID: "1")
                throw Planned()
            }
        }
        #expect(announcements.published.count == 1)
        #expect(try await storage.grants.find(appID: "100000000000001", userID: "1") != nil)
        try await storage.shutdown()
    }

    /// Many requests writing the same row at once (the bench's consent POSTs, all for one person) queue on the
    /// row's lock with their pooled connections held. Each one's announcement (a `NOTIFY` on PostgreSQL) goes on
    /// its own session before `COMMIT`, never on a second pooled connection: otherwise every connection could end
    /// up held by a transaction waiting for a free one, and the pool's wait timeout would fail them all.
    @Test func concurrentTransactionsOnOneRowAllCommitWithTheirAnnouncements() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app())
            try await storage.users.create(Fixture.user("1"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<24 {
                    group.addTask {
                        try await storage.transaction { tx in
                            try await tx.grants.save(
                                Fixture.grant(app: "100000000000001", user: "1", granted: ["public_profile", "p\(i)"]))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let granted = try #require(try await storage.grants.find(appID: "100000000000001", userID: "1")?.granted)
            #expect(granted.count == 2 && granted.first == "public_profile")
        }
    }

    @Test func theGateLetsOneHolderInAtATimeInArrivalOrder() async throws {
        let gate = WriterGate()
        let log = NIOLockedValueBox<[String]>([])
        let inside = NIOLockedValueBox(0)
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await gate.exclusively {
                inside.withLockedValue { $0 += 1 }
                enter.yield()
                for await _ in released { break }
                log.withLockedValue { $0.append("first") }
                inside.withLockedValue { $0 -= 1 }
            }
        }
        for await _ in entered { break }
        var others: [Task<Void, any Error>] = []
        for name in ["second", "third", "fourth"] {
            others.append(
                Task {
                    try await gate.exclusively {
                        #expect(inside.withLockedValue { $0 } == 0)
                        inside.withLockedValue { $0 += 1 }
                        await Task.yield()
                        log.withLockedValue { $0.append(name) }
                        inside.withLockedValue { $0 -= 1 }
                    }
                })
            // Each waiter is queued before the next one asks. Polled with sleeps, not `Task.yield()`: a task that
            // yields in a loop can keep a two-thread pool from ever running the task it waits for.
            let queued = others.count
            try await waitUntil { await gate.waiters >= queued }
        }
        #expect(log.withLockedValue { $0 }.isEmpty)
        release.yield()
        try await first.value
        for task in others { try await task.value }
        #expect(log.withLockedValue { $0 } == ["first", "second", "third", "fourth"])
    }
}
