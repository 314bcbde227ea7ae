import Foundation
import GatehouseCore

/// How an outbox retries, written once for every outbox: the waits between attempts, when it gives up, how long
/// an attempt holds its row, and what an attempt's outcome does to the row. Pure: no clock, store or transport.
package struct OutboxPolicy: Sendable, Equatable {
    /// Waits after the 1st, 2nd, … failed attempt; after the last one the outbox gives up.
    package let backoff: [TimeInterval]
    /// How long one attempt may hold a row before another worker may retry it; longer than any one attempt
    /// (the sendmail command's and the callback client's timeouts are 60 s).
    package let lease: TimeInterval

    package init(backoff: [TimeInterval], lease: TimeInterval = 120) {
        self.backoff = backoff
        self.lease = lease
    }

    /// Account mail: a confirmation or reset link is worth little after a few hours.
    package static let mail = OutboxPolicy(backoff: [30, 120, 600, 1800, 3600, 3 * 3600])
    /// App callbacks (deauthorize, data deletion): an app's server may be down for a night.
    package static let appCallbacks = OutboxPolicy(
        backoff: [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600])
    /// Event sinks (issue 42): the first retries soon (a receiver restarting), then for up to two days.
    package static let eventSinks = OutboxPolicy(
        backoff: [5, 30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600])

    /// The most attempts an item gets: the first, and one after each wait.
    package var attemptLimit: Int { backoff.count + 1 }

    /// When to try again after `attempts` failed attempts, or nil to give up.
    package func nextAttempt(afterFailedAttempts attempts: Int, now: Date) -> Date? {
        guard attempts >= 1, attempts <= backoff.count else { return nil }
        return now.addingTimeInterval(backoff[attempts - 1])
    }

    /// `item` after an attempt (already counted in its `attempts`) that ended at `time` with `outcome`.
    package func settle<Item: OutboxItem>(_ item: Item, _ outcome: OutboxOutcome, at time: Date) -> Item {
        var item = item
        switch outcome {
        case .delivered(let warning):
            item.deliveredAt = time
            item.nextAttemptAt = nil
            item.lastError = warning
        case .failed(let reason):
            item.lastError = reason
            item.nextAttemptAt = nextAttempt(afterFailedAttempts: item.attempts, now: time)
            if item.nextAttemptAt == nil { item.gaveUpAt = time }
        }
        return item
    }

    /// What follows a failed attempt, in the journal's words (`attempt 2 of 9, next at 08:02:30`, or `Gatehouse
    /// gave up after 9 attempts`); nil for a delivered item.
    package func sequel<Item: OutboxItem>(of item: Item) -> String? {
        if let next = item.nextAttemptAt {
            return "attempt \(item.attempts) of \(attemptLimit), next at \(JournalExplanation.clockTime(next))"
        }
        return item.gaveUpAt == nil ? nil : "Gatehouse gave up after \(item.attempts) attempts"
    }
}

/// How one delivery attempt ended.
package enum OutboxOutcome: Sendable, Equatable {
    /// The far end took the item; `warning` is kept as its last error when its answer was not what it should be
    /// (an app's data-deletion reply without a confirmation code).
    case delivered(warning: String? = nil)
    /// The far end did not take the item, for `reason` (kept as its last error).
    case failed(String)
}
