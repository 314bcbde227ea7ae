import Foundation
import GatehouseCore
import Logging
import ServiceLifecycle

/// Copies this node's journal into the `request_journal` table (`--journal-table`), off the request path: the
/// journal hands each entry to a bounded ``JournalBuffer``; this service writes what has gathered once a second
/// in multi-row inserts, and prunes by age and count once a minute. On shutdown it writes what is left.
package struct JournalTableWriter: Service {
    let buffer: JournalBuffer
    let store: any JournalStore
    let clock: any GatehouseClock
    let retention: TimeInterval
    let maximumRows: Int
    let node: String
    let logger: Logger
    var period: Duration = .seconds(1)
    var prunePeriod: Duration = .seconds(60)

    package init(
        buffer: JournalBuffer, store: any JournalStore, configuration: GatehouseConfiguration,
        clock: any GatehouseClock, logger: Logger
    ) {
        self.buffer = buffer
        self.store = store
        self.clock = clock
        self.retention = TimeInterval(configuration.journalRetentionHours) * 3600
        self.maximumRows = configuration.journalMaxRows
        self.node = ProcessInfo.processInfo.hostName + ":\(configuration.port)"
        self.logger = logger
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var lastPrune = ContinuousClock.now - prunePeriod
            while !Task.isCancelled {
                await flush()
                if ContinuousClock.now - lastPrune >= prunePeriod {
                    await prune()
                    lastPrune = ContinuousClock.now
                }
                try? await Task.sleep(for: period)
            }
        }
        await flush()
    }

    /// Writes what has gathered; on failure the batch is lost (the in-memory journal still has it) and logged.
    func flush() async {
        let (entries, dropped) = buffer.drain()
        if dropped > 0 {
            logger.warning("request journal table fell behind; entries dropped", metadata: ["dropped": "\(dropped)"])
        }
        guard !entries.isEmpty else { return }
        do {
            try await store.append(entries, node: node)
        } catch {
            logger.error(
                "request journal entries not stored", metadata: ["count": "\(entries.count)", "error": "\(error)"])
        }
    }

    func prune() async {
        do {
            try await store.prune(olderThan: clock.now().addingTimeInterval(-retention), keepingAtMost: maximumRows)
        } catch {
            logger.error("request journal not pruned", metadata: ["error": "\(error)"])
        }
    }
}
