import Foundation
import NIOConcurrencyHelpers
import SQLKit
import SQLiteKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Issue 11, item 5: writes that queue behind a commit share the next one, and sharing changes nobody's outcome.
@Suite struct GroupCommitTests {
    typealias Rig = SQLiteReadRoutingTests.Rig

    struct Refused: Error, Equatable {}

    /// A latch a writer's work waits on, so the others queue up behind it.
    final class Latch: @unchecked Sendable {
        private let lock = NIOLock()
        private var opened = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock { () -> Bool in
                    if opened { return true }
                    waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
        func open() {
            let waiting = lock.withLock {
                opened = true; return waiters
            }
            waiting.forEach { $0.resume() }
        }
    }

    static func bodies(_ db: any SQLDatabase) async throws -> [String] {
        try await db.raw("SELECT body FROM notes ORDER BY id").all().map {
            try $0.decode(column: "body", as: String.self)
        }
    }

    /// Holds the lead with a first writer (it inserts row `firstID`, 'first') until `queued` more writers wait,
    /// then lets them commit as one group. Returns how many statements the writer connection had run when the
    /// first writer was let go.
    ///
    /// `start` starts the writers; it awaits `inQueue(n)` after starting the n-th so they queue in the order it
    /// starts them (tasks started together may reach the queue in any order).
    @discardableResult
    static func queueBehindAFirstWriter(
        _ routing: SQLiteReadRouting, _ rig: Rig, firstID: Int = 100, queued: Int,
        _ start: (_ inQueue: (Int) async throws -> Void) async throws -> Void
    ) async throws -> Int {
        let latch = Latch()
        let entered = NIOLockedValueBox(false)
        let first = Task {
            try await routing.transaction { db in
                try await db.raw("INSERT INTO notes (id, body) VALUES (\(unsafeRaw: String(firstID)), 'first')").run()
                entered.withLockedValue { $0 = true }
                await latch.wait()
            }
        }
        try await waitUntil { entered.withLockedValue { $0 } }
        try await start { count in try await waitUntil { routing.group.waitingCount == count } }
        try await waitUntil { routing.group.waitingCount == queued }
        let statements = rig.writer.statements
        latch.open()
        try await first.value
        return statements
    }

    @Test func writersThatQueueShareOneCommitAndEachKeepsItsOwnOutcome() async throws {
        let rig = try await Rig.make()
        let routing = rig.routing
        try await routing.raw("INSERT INTO notes (id, body) VALUES (4, 'taken')").run()
        var refused: Task<Void, any Error>?
        var kept: Task<Void, any Error>?
        var clash: Task<Void, any Error>?
        // While the first group waits, three more writers queue up.
        try await Self.queueBehindAFirstWriter(routing, rig, firstID: 1, queued: 3) { inQueue in
            refused = Task {
                try await routing.transaction { db -> Void in
                    try await db.raw("INSERT INTO notes (id, body) VALUES (2, 'refused')").run()
                    throw Refused()
                }
            }
            try await inQueue(1)
            kept = Task {
                try await routing.transaction { db in
                    try await db.raw("INSERT INTO notes (id, body) VALUES (3, 'kept')").run()
                }
            }
            try await inQueue(2)
            clash = Task { try await routing.insert(into: "notes").columns("id", "body").values(4, "clash").run() }
        }
        let (refusedWriter, keptWriter, clashWriter) = (refused!, kept!, clash!)
        await #expect(throws: Refused.self) { try await refusedWriter.value }
        try await keptWriter.value
        do {
            try await clashWriter.value
            Issue.record("a duplicate primary key was inserted")
        } catch {
            guard case .uniqueViolation(let detail) = SQLErrorClassifier.sqlite.classify(error) else {
                Issue.record("expected a unique violation, got \(error)")
                return
            }
            #expect(detail.contains("notes.id"))
        }
        #expect(routing.group.groups == [1, 3])
        // Answered means committed: a reader, on its own connection, sees every kept write.
        #expect(try await Self.bodies(rig.readers[0]) == ["first", "kept", "taken"])
        await rig.close()
    }

    @Test func manyConcurrentWritersAllCommitAndSomeShare() async throws {
        let rig = try await Rig.make()
        let routing = rig.routing
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        try await routing.insert(into: "notes").columns("id", "body").values(index, "row \(index)")
                            .run()
                    } else {
                        try await routing.transaction { db in
                            try await db.insert(into: "notes").columns("id", "body").values(index, "row \(index)").run()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let groups = routing.group.groups
        #expect(groups.reduce(0, +) == 60)
        #expect(groups.contains { $0 > 1 })
        #expect(try await Self.bodies(rig.readers[1]).count == 60)
        await rig.close()
    }

    @Test func aGroupWhereEveryoneSucceedsRunsWithoutSavepoints() async throws {
        let rig = try await Rig.make()
        let routing = rig.routing
        var writers: [Task<Void, any Error>] = []
        let before = try await Self.queueBehindAFirstWriter(routing, rig, queued: 3) { _ in
            for id in 1...3 {
                writers.append(
                    Task {
                        try await routing.transaction { db in
                            try await db.raw("INSERT INTO notes (id, body) VALUES (\(unsafeRaw: String(id)), 'a')")
                                .run()
                            try await db.raw("UPDATE notes SET body = 'b' WHERE id = \(unsafeRaw: String(id))").run()
                        }
                    })
            }
        }
        for writer in writers { try await writer.value }
        #expect(routing.group.groups == [1, 3])
        // The first group's COMMIT, then the second group: BEGIN, six statements, COMMIT. With a savepoint and a
        // release for each writer it would be 14.
        #expect(rig.writer.statements - before == 1 + 8)
        #expect(try await Self.bodies(rig.readers[0]) == ["b", "b", "b", "first"])
        await rig.close()
    }

    @Test func aWriterFailingHalfWaySendsItsGroupRoundAgainWithSavepointsAndOnlyItsWorkIsUndone() async throws {
        let rig = try await Rig.make()
        let routing = rig.routing
        let runs = NIOLockedValueBox([String: Int]())
        @Sendable func ran(_ name: String) { runs.withLockedValue { $0[name, default: 0] += 1 } }
        var kept: [Task<Int, any Error>] = []
        var refused: Task<Void, any Error>?
        try await Self.queueBehindAFirstWriter(routing, rig, queued: 3) { inQueue in
            kept.append(
                Task {
                    try await routing.transaction { db -> Int in
                        ran("before")
                        try await db.raw("INSERT INTO notes (id, body) VALUES (1, 'before')").run()
                        return runs.withLockedValue { $0["before"]! }
                    }
                })
            try await inQueue(1)
            refused = Task {
                try await routing.transaction { db -> Void in
                    ran("refused")
                    try await db.raw("INSERT INTO notes (id, body) VALUES (2, 'refused')").run()
                    throw Refused()
                }
            }
            try await inQueue(2)
            kept.append(
                Task {
                    try await routing.transaction { db -> Int in
                        ran("after")
                        try await db.raw("INSERT INTO notes (id, body) VALUES (3, 'after')").run()
                        return runs.withLockedValue { $0["after"]! }
                    }
                })
        }
        // What a writer returns comes from the run that committed.
        #expect(try await kept[0].value == 2)
        await #expect(throws: Refused.self) { try await refused!.value }
        #expect(try await kept[1].value == 1)
        // The optimistic pass stopped at the refusal; the savepoint pass ran everyone.
        #expect(runs.withLockedValue { $0 } == ["before": 2, "refused": 2, "after": 1])
        #expect(routing.group.groups == [1, 3])
        #expect(try await Self.bodies(rig.readers[0]) == ["before", "after", "first"])
        await rig.close()
    }

    @Test func aWriterAloneRunsAsBeforeAndItsErrorRollsItBack() async throws {
        let rig = try await Rig.make()
        let routing = rig.routing
        await #expect(throws: Refused.self) {
            try await routing.transaction { db -> Void in
                try await db.raw("INSERT INTO notes (id, body) VALUES (1, 'undone')").run()
                throw Refused()
            }
        }
        try await routing.insert(into: "notes").columns("id", "body").values(2, "alone").run()
        #expect(routing.group.groups == [1, 1])
        #expect(try await Self.bodies(rig.readers[0]) == ["alone"])
        await rig.close()
    }
}
