import Foundation
import GatehouseCore
import ServiceLifecycle

/// Delivers due mail every `period`, and at once when the doorbell rings, until the service group shuts down.
/// Registered by `ServerStartup.bringUp` (so both `gatehouse serve` and `GatehouseEmulator` run it) only when
/// the outbox has a transport; in development nothing leaves the server.
package struct MailOutboxWorker: Service {
    let outbox: MailOutbox
    let period: Duration
    let doorbell: OutboxDoorbell

    init(outbox: MailOutbox, period: Duration = .seconds(5), doorbell: OutboxDoorbell) {
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
