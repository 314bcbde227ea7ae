import NIOConcurrencyHelpers
import SQLiteNIO

/// Closes a storage's SQLite connections: at ``close()`` (`Storage.shutdown`), or, if that never happens, once
/// nothing can use them any more.
///
/// Every copy of the storage's ``SQLiteReadRouting`` holds this closer, so it is released only after the last
/// statement that could run on these connections. A storage dropped without `shutdown` (a test that fails half
/// way, a leaked copy) then closes its files instead of leaking them; in debug builds sqlite-nio would otherwise
/// stop the whole process with its "was not closed before deinitializing" assertion.
package final class SQLiteConnectionCloser: Sendable {
    private let connections: [SQLiteConnection]
    private let kept: SQLiteKeptReads?
    private let closed = NIOLockedValueBox(false)

    /// - Parameters:
    ///   - connections: the readers, then the writer (closed in that order).
    ///   - kept: the kept-statement readers, closed first.
    package init(_ connections: [SQLiteConnection], kept: SQLiteKeptReads? = nil) {
        self.connections = connections
        self.kept = kept
    }

    /// Closes every connection, once; later calls do nothing.
    package func close() async throws {
        guard claim() else { return }
        kept?.close()
        var failure: (any Error)?
        for connection in connections {
            do { try await connection.close() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    private func claim() -> Bool {
        closed.withLockedValue { closed in
            defer { closed = true }
            return !closed
        }
    }

    deinit {
        guard claim() else { return }
        kept?.close()
        // The close runs on sqlite-nio's thread pool and keeps its connection alive until the handle is closed.
        for connection in connections { _ = connection.close() }
    }
}
