import GatehouseCore
import Foundation
import SQLKit

/// Catches writes that another process (e.g. `gatehouse keys rotate --data-dir` or `gatehouse apps update`
/// while the server runs) made to the SQLite file behind this node's caches.
///
/// SQLite's `PRAGMA data_version` changes on a connection whenever *another* connection committed, and costs no
/// disk read, so polling it every ``interval`` is cheap. On a change (or when the poll fails, since then a change
/// cannot be ruled out) every cache of the node is dropped. Writes through this process's own stores invalidate
/// through their decorators at once and do not move `data_version` for this connection.
package final class SQLiteChangeWatcher: Sendable {
    package static let interval: Duration = .milliseconds(250)

    private let task: Task<Void, Never>

    private init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Starts polling `db` in the background until ``stop()``.
    package static func start(
        db: any SQLDatabase, caches: any CacheInvalidationTarget, interval: Duration = SQLiteChangeWatcher.interval
    ) -> SQLiteChangeWatcher {
        SQLiteChangeWatcher(task: Task {
            var last = try? await version(db)
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                let current = try? await version(db)
                if current == nil || current != last { caches.invalidate(.all) }
                last = current
            }
        })
    }

    /// Stops polling; returns once the last poll finished, so the connection may be closed.
    package func stop() async {
        task.cancel()
        await task.value
    }

    package static func version(_ db: any SQLDatabase) async throws -> Int? {
        try await db.raw("PRAGMA data_version").first(decodingColumn: "data_version", as: Int.self)
    }
}
