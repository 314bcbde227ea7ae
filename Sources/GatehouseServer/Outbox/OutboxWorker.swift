import Foundation
import GatehouseCore
import ServiceLifecycle

/// Delivers an outbox's due items every `period`, and at once when the doorbell rings, until the service group
/// shuts down. Retries left by an earlier run are picked up on the first pass.
///
/// `ServerStartup.bringUp` registers one for app callbacks, and one for mail when mail leaves the server, with
/// the server's service group (and so `GatehouseEmulator`'s): it starts and stops with the server, and a shutdown
/// waits for its attempt in flight before the database closes.
package struct OutboxWorker<Delivery: OutboxDelivery>: Service {
    let outbox: Outbox<Delivery>
    let period: Duration
    let doorbell: OutboxDoorbell

    package init(outbox: Outbox<Delivery>, period: Duration = .seconds(5), doorbell: OutboxDoorbell) {
        self.outbox = outbox
        self.period = period
        self.doorbell = doorbell
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await outbox.deliverDue()
                await doorbell.wait(atMost: period)
            }
        }
    }
}

/// Wakes an outbox worker as soon as an item is queued, so an app hears of a removal (or a person gets their mail)
/// without waiting for the next period; the request that queued it never waits on the far end. A ring with nobody
/// waiting is kept.
package final class OutboxDoorbell: @unchecked Sendable {
    private let lock = NSLock()
    private var rung = false
    private var waiter: CheckedContinuation<Void, Never>?

    package init() {}

    /// Wakes the worker (now, or on its next wait).
    package func ring() {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            defer { waiter = nil }
            if waiter == nil { rung = true }
            return waiter
        }
        waiting?.resume()
    }

    /// Returns when rung, after `period`, or when the task is cancelled, whichever comes first.
    func wait(atMost period: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: period) }
            group.addTask { await self.nextRing() }
            await group.next()
            group.cancelAll()
            self.ring()  // releases `nextRing` if the sleep won; the stored ring is cleared below
            await group.waitForAll()
            lock.withLock { rung = false }
        }
    }

    private func nextRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = lock.withLock {
                    if rung { rung = false; return true }
                    waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            self.ring()
        }
    }
}
