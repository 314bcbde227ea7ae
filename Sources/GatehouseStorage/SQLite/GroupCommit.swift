import GatehouseCore
import NIOConcurrencyHelpers
import SQLKit

/// Commits the writes that queue up behind one another on the SQLite writer together: one `COMMIT`, one fsync.
///
/// With `synchronous=FULL` every commit waits for the disk, and one writer connection commits one transaction
/// at a time. Whoever arrives while a group is committing waits, and the next group takes every waiter at once:
/// `BEGIN IMMEDIATE`, each writer's work in its own `SAVEPOINT`, then a single `COMMIT`. Nobody is answered
/// before the `COMMIT` that holds their work has returned, so an answered write still survives `kill -9`.
/// A writer alone runs exactly as before: a transaction as `BEGIN`, its work, `COMMIT`, and a single statement
/// on its own.
///
/// A group first runs optimistically: everyone's work straight in the transaction, no savepoints, since writers
/// almost never fail and a savepoint and its release are two more round trips to SQLite's thread pool for each.
/// When a writer with several statements fails there, the whole transaction rolls back and the group runs again,
/// this time with each writer in its own `SAVEPOINT`. So a writer's work may run twice, and it must do nothing
/// outside the database that cannot be repeated (the stores' work qualifies: a rerun mints a fresh token and
/// returns it, and only the committed run's result is answered).
///
/// - A writer's error rolls back to its savepoint: its neighbours' work stands and is committed.
/// - A single statement needs no savepoint: SQLite undoes a statement that breaks a constraint by itself.
/// - Any other database error may have ended the whole transaction, so the group stops there: everyone in it
///   gets that error and nothing of it is committed.
/// - A failed `COMMIT` fails everyone in the group. The group's own errors come out as `StorageError`; a
///   writer's own errors come out unchanged.
///
/// The group's leader is one of its writers. When its group has committed it hands the lead to the first
/// waiter, who commits the next group, so no task runs outside a request and each request answers as soon as
/// its own group is on disk.
package final class GroupCommit: Sendable {
    /// One writer's work, waiting for a group.
    private final class Entry: @unchecked Sendable {
        let work: @Sendable (any SQLDatabase) async throws -> Void
        let isSingleStatement: Bool
        // Written by the leader before the entry is resumed, read by its owner after: the resume orders them.
        var failure: (any Error)?
        var wakeUp: CheckedContinuation<Bool, Never>?

        init(isSingleStatement: Bool, work: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
            self.isSingleStatement = isSingleStatement
            self.work = work
        }
    }

    private struct State {
        var leading = false
        var waiting: [Entry] = []
    }

    private let writer: any SQLDatabase
    private let gate: WriterGate
    private let state = NIOLockedValueBox(State())
    private let groupSizes = NIOLockedValueBox<[Int]>([])

    package init(writer: any SQLDatabase, gate: WriterGate) {
        self.writer = writer
        self.gate = gate
    }

    /// How many writers wait for the next group (for tests).
    package var waitingCount: Int { state.withLockedValue { $0.waiting.count } }

    /// How many writers each recent group committed together, oldest first (for tests; the last 64).
    package var groups: [Int] { groupSizes.withLockedValue { $0 } }

    /// Runs `work` in the next group's transaction on the writer and returns once that group has committed.
    /// `work` may run twice (see the type's notes); what it returns from the run that committed is returned.
    /// - Parameter isSingleStatement: `work` runs exactly one statement (it then needs no savepoint).
    package func write<R: Sendable>(
        isSingleStatement: Bool = false, _ work: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        let value = NIOLockedValueBox<R?>(nil)
        let entry = Entry(isSingleStatement: isSingleStatement) { db in
            let result = try await work(db)
            value.withLockedValue { $0 = result }
        }
        let leads = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let leadsNow = state.withLockedValue { state -> Bool in
                if state.leading {
                    entry.wakeUp = continuation
                    state.waiting.append(entry)
                    return false
                }
                state.leading = true
                return true
            }
            if leadsNow { continuation.resume(returning: true) }
        }
        if leads { await lead(with: entry) }
        if let failure = entry.failure { throw failure }
        guard let result = value.withLockedValue({ $0 }) else {
            throw StorageError.unavailable("a grouped write returned nothing")
        }
        return result
    }

    /// Commits `first` with everyone waiting now, then hands the lead on (or gives it up when nobody waits).
    private func lead(with first: Entry) async {
        let group =
            [first]
            + state.withLockedValue { state in
                defer { state.waiting.removeAll(keepingCapacity: true) }
                return state.waiting
            }
        do {
            try await gate.exclusively { try await self.commit(group) }
        } catch {
            // The group's own statements failed (`BEGIN`, `COMMIT`, a savepoint): a storage error like any store's.
            let failure = SQLErrorClassifier.sqlite.storageError(error)
            for entry in group where entry.failure == nil { entry.failure = failure }
        }
        groupSizes.withLockedValue {
            $0.append(group.count)
            if $0.count > 64 { $0.removeFirst() }
        }
        let next: Entry? = state.withLockedValue { state in
            guard !state.waiting.isEmpty else {
                state.leading = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        for entry in group.dropFirst() { entry.wakeUp?.resume(returning: false) }
        next?.wakeUp?.resume(returning: true)
    }

    /// One transaction for the whole group. Errors it throws reach every entry not already failed.
    private func commit(_ group: [Entry]) async throws {
        let db = writer
        if group.count == 1, let only = group.first, only.isSingleStatement {
            // Alone, one statement commits by itself.
            do { try await only.work(db) } catch { only.failure = error }
            return
        }
        try await db.raw("BEGIN IMMEDIATE").run()
        if group.count == 1, let only = group.first {
            do {
                try await only.work(db)
            } catch {
                only.failure = error
                try? await db.raw("ROLLBACK").run()
                return
            }
        } else if try await !runOptimistically(group, db: db) {
            // Somebody failed half-way with nobody's savepoint to go back to: start over, each in their own.
            try await db.raw("ROLLBACK").run()
            try await db.raw("BEGIN IMMEDIATE").run()
            for entry in group { entry.failure = nil }
            for (index, entry) in group.enumerated() {
                do {
                    try await runInGroup(entry, db: db, index: index)
                } catch let stop as GroupStopped {
                    try? await db.raw("ROLLBACK").run()
                    throw stop.error
                } catch {
                    entry.failure = error
                }
            }
        }
        do {
            try await db.raw("COMMIT").run()
        } catch {
            try? await db.raw("ROLLBACK").run()
            throw error
        }
    }

    /// Runs everyone's work in the open transaction without savepoints. False when a writer with several
    /// statements failed: part of its work may stand, so the transaction has to go. A single statement that breaks
    /// a constraint is undone by SQLite alone, so its writer gets the error and the others carry on.
    private func runOptimistically(_ group: [Entry], db: any SQLDatabase) async throws -> Bool {
        for entry in group {
            do {
                try await entry.work(db)
            } catch {
                guard entry.isSingleStatement else { return false }
                switch SQLErrorClassifier.sqlite.classify(error) {
                case .uniqueViolation, .foreignKeyViolation: entry.failure = error
                case .unavailable:
                    try? await db.raw("ROLLBACK").run()
                    throw error
                }
            }
        }
        return true
    }

    /// An error after which the transaction itself may be gone: the whole group fails with it.
    private struct GroupStopped: Error {
        let error: any Error
    }

    private func runInGroup(_ entry: Entry, db: any SQLDatabase, index: Int) async throws {
        if entry.isSingleStatement {
            do {
                try await entry.work(db)
            } catch {
                // A broken constraint undoes the statement alone; anything else may have ended the transaction.
                switch SQLErrorClassifier.sqlite.classify(error) {
                case .uniqueViolation, .foreignKeyViolation: throw error
                case .unavailable: throw GroupStopped(error: error)
                }
            }
            return
        }
        // Savepoint names are the entry's place in the group: `w0`, `w1`, …
        func savepoint(_ verb: String) async throws {
            try await db.raw(SQLQueryString("\(unsafeRaw: verb) w\(unsafeRaw: String(index))")).run()
        }
        do { try await savepoint("SAVEPOINT") } catch { throw GroupStopped(error: error) }
        do {
            try await entry.work(db)
        } catch {
            do {
                try await savepoint("ROLLBACK TO")
                try await savepoint("RELEASE")
            } catch let lost {
                throw GroupStopped(error: lost)
            }
            throw error
        }
        do { try await savepoint("RELEASE") } catch { throw GroupStopped(error: error) }
    }
}
