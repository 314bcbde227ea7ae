import Foundation
import GatehouseCore
import Logging
import Tracing

/// What differs between outboxes: how one item reaches the outside (mail: a sendmail command; app callbacks: an
/// HTTP POST), and how an attempt is logged and journaled.
package protocol OutboxDelivery: Sendable {
    associatedtype Item: OutboxItem

    /// Makes one attempt at `item`, whose `attempts` already counts it. On success it may change what is kept
    /// (a sent mail's bodies are emptied; a data-deletion reply's confirmation code is stored).
    func deliver(_ item: inout Item) async -> OutboxAttempt
    /// Logs and journals one attempt once its outcome is stored (`item` as stored).
    func finished(_ item: Item, _ report: OutboxReport)
}

/// One attempt as its delivery saw it.
package struct OutboxAttempt: Sendable, Equatable {
    package var outcome: OutboxOutcome
    /// The far end's own status when it answered (an app's HTTP status), for the journal.
    package var status: Int?

    package init(_ outcome: OutboxOutcome, status: Int? = nil) {
        self.outcome = outcome
        self.status = status
    }
}

/// One finished attempt, for its delivery's log line and journal entry.
package struct OutboxReport: Sendable {
    package var attempt: OutboxAttempt
    /// What follows a failure, in the journal's words (``OutboxPolicy/sequel(of:)``); nil once delivered.
    package var sequel: String?
    /// When the attempt began, by the outbox's clock.
    package var startedAt: Date
    package var elapsed: Duration
}

/// A persistent outbox: rows in a store, each with its next attempt time, delivered one claimed row at a time.
///
/// ``deliverDue(limit:)`` (called by ``OutboxWorker`` every few seconds, and by tests after moving the injected
/// clock) takes due rows with a lease, makes one attempt through the delivery and stores the outcome, which
/// ``OutboxPolicy`` turns into the next attempt time or a give-up. Because the schedule lives in the database,
/// retries survive a restart and are shared by every node.
package struct Outbox<Delivery: OutboxDelivery>: Sendable {
    package typealias Item = Delivery.Item

    let store: any OutboxStore<Item>
    let delivery: Delivery
    package let policy: OutboxPolicy
    let clock: any GatehouseClock
    let logger: Logger
    /// Makes a span of each attempt (`outbox.attempt <kind>`, ``OutboxAttemptSpan``); nil makes none.
    package var tracer: (any Tracer)?

    /// Generic in the store so that an `any MailOutboxStore` is opened here: the compiler does not convert it
    /// to `any OutboxStore<MailMessageRecord>` by itself.
    package init<Store: OutboxStore>(
        store: Store, delivery: Delivery, policy: OutboxPolicy, clock: any GatehouseClock, logger: Logger
    ) where Store.Item == Item {
        self.store = store
        self.delivery = delivery
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// Attempts every due item once; returns them as stored afterwards.
    @discardableResult
    package func deliverDue(limit: Int = 50) async -> [Item] {
        guard let due = try? await store.due(now: clock.now(), limit: limit) else { return [] }
        var out: [Item] = []
        for item in due {
            if let done = await attempt(item) { out.append(done) }
        }
        return out
    }

    /// One attempt at an item that is due; nil when it is not due or another worker holds it.
    package func attempt(_ item: Item) async -> Item? {
        let now = clock.now()
        guard let due = item.nextAttemptAt, due <= now,
            (try? await store.claim(
                id: item.id, expectedNextAttemptAt: due, leaseUntil: now.addingTimeInterval(policy.lease))) == true
        else { return nil }
        guard let tracer else { return await settle(item, claimedAt: now).item }
        return await OutboxAttemptSpan.around(kind: Delivery.traceName, tracer: tracer) {
            await settle(item, claimedAt: now)
        }
    }

    /// One attempt at a claimed item: delivered, its outcome stored, then reported.
    private func settle(_ item: Item, claimedAt now: Date) async -> (item: Item, attempt: OutboxAttempt) {
        var next = item
        next.attempts += 1
        let started = ContinuousClock.now
        let attempt = await delivery.deliver(&next)
        next = policy.settle(next, attempt.outcome, at: clock.now())
        do {
            try await store.update(next)
        } catch {
            // The lease runs out and the item is tried again: at worst delivered twice, never lost.
            logger.error(
                "outbox outcome not saved",
                metadata: ["item": "\(Item.self)", "id": "\(item.id)", "error": "\(error)"])
        }
        delivery.finished(
            next,
            OutboxReport(
                attempt: attempt, sequel: policy.sequel(of: next), startedAt: now,
                elapsed: ContinuousClock.now - started))
        return (next, attempt)
    }
}
