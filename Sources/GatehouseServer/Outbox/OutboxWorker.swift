import Foundation
import GatehouseCore
import ServiceLifecycle

/// Delivers due app callbacks (deauthorize, data deletion) every `period`, and at once when the doorbell rings,
/// until the service group shuts down. Retries left by an earlier run are picked up on the first pass.
///
/// Registered with the server's service group (and `GatehouseEmulator`'s), so it starts and stops with the
/// server, and a shutdown waits for its attempt in flight before the database closes.
package struct CallbackOutboxWorker: Service {
    let outbox: CallbackOutbox
    let period: Duration
    let doorbell: OutboxDoorbell

    package init(outbox: CallbackOutbox, period: Duration = .seconds(5), doorbell: OutboxDoorbell) {
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

/// Wakes the outbox worker as soon as a callback is queued, so an app hears of a removal without waiting for the
/// next period; the person's request never waits on the app's server. A ring with nobody waiting is kept.
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
