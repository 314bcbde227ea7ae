import Foundation

/// Where recorded entries go besides memory: the optional `request_journal` table in production mode.
package protocol JournalSink: Sendable {
    /// Called once per recorded entry, after it has its sequence number. Must not block: queue and return.
    func accept(_ entry: JournalEntry)
}

/// The request journal of one node: a bounded ring buffer in memory.
///
/// Recording is O(1) (one lock, one slot overwritten); when the journal is off nothing is built at all, because
/// the journal middleware is not installed and ``JournalNote/current`` stays nil, so the handlers' notes cost one
/// task-local read. Readers copy out what they want under the same lock.
package final class RequestJournal: Sendable {
    private struct State {
        var slots: [JournalEntry?]
        /// Each slot's ``JournalEntry/approximateBytes`` (0 when empty).
        var sizes: [Int]
        /// The sum of `sizes`.
        var bytes = 0
        /// The slot the next entry goes into.
        var next = 0
        var lastSequence = 0
        var enabled: Bool
    }

    package let capacity: Int
    /// The most bytes the kept entries may hold together; past it the oldest are dropped, whatever the count.
    package let maximumBytes: Int
    private let state: LockedValue<State>
    private let sink: (any JournalSink)?

    /// The default byte bound: a full default ring of ordinary entries (about 1 KB each) fits four times over.
    package static let defaultMaximumBytes = 4 * 1024 * 1024

    package init(
        capacity: Int = 1000, maximumBytes: Int = RequestJournal.defaultMaximumBytes, enabled: Bool = true,
        sink: (any JournalSink)? = nil
    ) {
        let capacity = max(1, capacity)
        self.capacity = capacity
        self.maximumBytes = max(1, maximumBytes)
        self.sink = sink
        self.state = LockedValue(
            State(
                slots: Array(repeating: nil, count: capacity), sizes: Array(repeating: 0, count: capacity),
                enabled: enabled))
    }

    /// What the kept entries hold, by ``JournalEntry/approximateBytes``.
    package var bytes: Int { state.withLockedValue { $0.bytes } }

    /// Whether entries are being recorded.
    package var isEnabled: Bool { state.withLockedValue { $0.enabled } }

    /// Pauses or resumes recording (what is kept stays readable).
    package func setEnabled(_ enabled: Bool) { state.withLockedValue { $0.enabled = enabled } }

    /// Records an entry, giving it the next sequence number; returns that number, or nil when the journal is off.
    @discardableResult
    package func record(_ entry: JournalEntry) -> Int? {
        var entry = entry.bounded()
        let size = entry.approximateBytes
        let recorded: Bool = state.withLockedValue { state in
            guard state.enabled else { return false }
            state.lastSequence += 1
            entry.sequence = state.lastSequence
            state.bytes += size - state.sizes[state.next]
            state.slots[state.next] = entry
            state.sizes[state.next] = size
            state.next = (state.next + 1) % capacity
            // Drop from the oldest end; the newest entry itself always stays (one is bounded by its fields).
            var oldest = state.next
            while state.bytes > maximumBytes, oldest != (state.next - 1 + capacity) % capacity {
                state.bytes -= state.sizes[oldest]
                state.slots[oldest] = nil
                state.sizes[oldest] = 0
                oldest = (oldest + 1) % capacity
            }
            return true
        }
        guard recorded else { return nil }
        sink?.accept(entry)
        return entry.sequence
    }

    /// The sequence number of the newest entry (0 when none was recorded).
    package var lastSequence: Int { state.withLockedValue { $0.lastSequence } }

    /// Entries matching `filter`, newest first, at most `limit`; with `after`, only entries recorded after that
    /// sequence number (what a follower has not seen yet).
    package func entries(matching filter: JournalFilter = JournalFilter(), after: Int? = nil, limit: Int = 100)
        -> [JournalEntry]
    {
        let limit = max(0, limit)
        return state.withLockedValue { state in
            var out: [JournalEntry] = []
            var index = state.next
            for _ in 0..<capacity {
                index = (index - 1 + capacity) % capacity
                guard let entry = state.slots[index] else { break }
                if let after, entry.sequence <= after { break }
                if filter.matches(entry) {
                    out.append(entry)
                    if out.count >= limit { break }
                }
            }
            return out
        }
    }

    /// One entry by sequence number, while it is still in the buffer.
    package func entry(sequence: Int) -> JournalEntry? {
        state.withLockedValue { state in
            guard sequence > 0, sequence <= state.lastSequence, state.lastSequence - sequence < capacity else {
                return nil
            }
            let back = state.lastSequence - sequence
            let index = (state.next - 1 - back + capacity * 2) % capacity
            return state.slots[index].flatMap { $0.sequence == sequence ? $0 : nil }
        }
    }

    /// The parts recorded for a batch entry.
    package func parts(ofBatch sequence: Int) -> [JournalEntry] {
        state.withLockedValue { state in
            state.slots.compactMap { $0 }.filter { $0.batchSequence == sequence }.sorted { $0.sequence < $1.sequence }
        }
    }

    /// Forgets every entry (sequence numbers keep counting).
    package func clear() {
        state.withLockedValue { state in
            // Only the filled slots, which run back from `next` without a gap: a reset between tests empties a
            // journal of a few entries, and rebuilding all `capacity` slots was a few percent of its CPU.
            var index = state.next
            for _ in 0..<capacity {
                index = (index - 1 + capacity) % capacity
                guard state.slots[index] != nil else { break }
                state.slots[index] = nil
                state.sizes[index] = 0
            }
            state.bytes = 0
            state.next = 0
        }
    }
}
