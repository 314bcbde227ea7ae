import GatehouseCore
import Foundation
import SQLKit

/// Catches writes that another process (e.g. `gatehouse keys rotate --data-dir` or `gatehouse apps update`
/// while the server runs) made to the SQLite file behind this node's caches: the SQLite
/// ``CacheInvalidationFeed``.
///
/// SQLite's `PRAGMA data_version` changes on a connection whenever *another* connection committed, and costs no
/// disk read, so polling it every ``interval`` is cheap. On a change (or when the poll fails, since then a change
/// cannot be ruled out) every cache of the node is dropped. Writes through this process's own stores invalidate
/// through their decorators at once and do not move `data_version` for this connection.
package struct SQLiteChangeWatcher: CacheInvalidationFeed {
    package static let interval: Duration = .milliseconds(250)

    let db: any SQLDatabase
    let caches: any CacheInvalidationTarget
    let interval: Duration

    /// - Parameter db: asked through the routing database, whose pragmas run on the writer: there this
    ///   process's own commits do not move `data_version`.
    package init(
        db: any SQLDatabase, caches: any CacheInvalidationTarget, interval: Duration = SQLiteChangeWatcher.interval
    ) {
        self.db = db
        self.caches = caches
        self.interval = interval
    }

    /// Switches the caches on once the first version is read, polls until cancelled, then switches them off.
    package func run() async {
        var last = try? await Self.version(db)
        caches.setEnabled(last != nil)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { break }
            let current = try? await Self.version(db)
            if current == nil || current != last {
                // Unreadable: off until a poll succeeds again. Changed: drop everything.
                if (current == nil) != (last == nil) {
                    caches.setEnabled(current != nil)
                } else {
                    caches.invalidate(.all)
                }
            }
            last = current
        }
        caches.setEnabled(false)
    }

    package static func version(_ db: any SQLDatabase) async throws -> Int? {
        try await db.raw("PRAGMA data_version").first(decodingColumn: "data_version", as: Int.self)
    }
}
