/// A first-come, first-served lock for the one SQLite writer connection, held across `await`s.
///
/// sqlite-nio already runs one statement at a time on a connection, but a transaction is several statements:
/// without this, another request's autocommitted write could land between a transaction's `BEGIN` and
/// `COMMIT` and be committed (or rolled back) with it.
package actor WriterGate {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var next = 0

    /// How many are waiting for the gate (for tests).
    package var waiters: Int { waiting.count - next }

    /// Runs `body` while holding the gate; whoever asked earlier runs earlier.
    package nonisolated func exclusively<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        guard next < waiting.count else {
            held = false
            waiting.removeAll(keepingCapacity: true)
            next = 0
            return
        }
        // Hand the gate straight to the next waiter (`held` stays true), so nobody can jump the queue.
        let continuation = waiting[next]
        next += 1
        continuation.resume()
    }
}
