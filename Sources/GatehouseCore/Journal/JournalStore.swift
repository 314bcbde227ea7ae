import Foundation

/// The optional durable journal: the `request_journal` table (migration 10), shared by every node on the
/// database, with retention by age and row count. Written in batches by the server's journal writer, never on
/// a request's path.
package protocol JournalStore: Sendable {
    /// Appends entries (one multi-row statement per call); `node` names the writing node.
    func append(_ entries: [JournalEntry], node: String) async throws
    /// The newest entries, newest first (the table's own order, across nodes).
    func recent(limit: Int) async throws -> [JournalEntry]
    /// Deletes entries older than `cutoff`, then all but the newest `maximumRows`; returns how many went.
    @discardableResult
    func prune(olderThan cutoff: Date, keepingAtMost maximumRows: Int) async throws -> Int
}

/// Recorded entries waiting for the journal writer: bounded, so a database that cannot keep up costs memory
/// only up to ``capacity`` (the oldest waiting entries are dropped and counted).
package final class JournalBuffer: JournalSink {
    private struct State {
        var pending: [JournalEntry] = []
        var dropped = 0
    }

    package let capacity: Int
    private let state = LockedValue(State())

    package init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    package func accept(_ entry: JournalEntry) {
        state.withLockedValue { state in
            if state.pending.count >= capacity {
                state.pending.removeFirst(state.pending.count - capacity + 1)
                state.dropped += 1
            }
            state.pending.append(entry)
        }
    }

    /// Takes everything waiting, and how many entries were dropped since the last call.
    package func drain() -> (entries: [JournalEntry], dropped: Int) {
        state.withLockedValue { state in
            defer { state.pending.removeAll(keepingCapacity: true); state.dropped = 0 }
            return (state.pending, state.dropped)
        }
    }
}
