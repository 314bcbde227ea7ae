import Foundation
import Testing

/// Polls `condition` every 10 ms until it holds; records an issue at the caller after `seconds`.
///
/// The deadline only matters when something is broken, so it is generous: the suite runs hundreds of tests at
/// once on a two-core machine that other builds share, where a change another node announces (the SQLite
/// watcher's poll, a PostgreSQL `NOTIFY`) can take seconds to arrive.
package func waitUntil(
    seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    // Once more after the deadline: a poller starved past it may find the condition came true meanwhile.
    if try await condition() { return }
    Issue.record("condition not met within \(seconds) s", sourceLocation: sourceLocation)
}
