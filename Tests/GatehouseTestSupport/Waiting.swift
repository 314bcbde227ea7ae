import Foundation
import Testing

/// Polls `condition` every 10 ms for up to `seconds`.
package func waitUntil(seconds: Double = 5, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within \(seconds) s")
}
