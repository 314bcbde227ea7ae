import Foundation
import GatehouseKit
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Shared helpers of the Caching, Session and Profile tests, fast and live (namespaced so they cannot clash with
/// other suites' helpers).
package enum SessionKitFixtures {
    /// A clock the test moves by hand.
    package final class Clock: SDKClock, @unchecked Sendable {
        private let lock = NSLock()
        private var current: Date
        package init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { current = start }
        package func now() -> Date { lock.withLock { current } }
        package func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    }

    package static let appID = "1000000000001"

    package static func token(
        user: String = "100", string: String = "EAAtoken-100", permissions: [String] = ["public_profile"],
        declined: [String] = [], expires: Date? = Date(timeIntervalSince1970: 1_760_000_000),
        refresh: Date = Date(timeIntervalSince1970: 1_749_000_000)
    ) -> AccessToken {
        AccessToken(
            tokenString: string, permissions: permissions, declinedPermissions: declined, expiredPermissions: [],
            appID: appID, userID: user, expirationDate: expires, refreshDate: refresh,
            dataAccessExpirationDate: Date(timeIntervalSince1970: 1_770_000_000))
    }

    /// A fresh folder under the temporary directory (not created).
    package static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-k3-\(UUID().uuidString)", isDirectory: true)
    }

    package static func environment(
        clock: any SDKClock = Clock(), tokenCache: (any TokenCaching)? = InMemoryTokenCache(),
        profileCache: (any ProfileCaching)? = nil, settings: Settings = Settings()
    ) -> GatehouseKitEnvironment {
        if settings.appID == nil { settings.appID = appID }
        return GatehouseKitEnvironment(
            settings: settings, clock: clock, tokenCache: tokenCache, profileCache: profileCache)
    }

    /// Runs `body` with `environment` as `GatehouseKitEnvironment.current` for this task only.
    package static func with<T>(
        _ environment: GatehouseKitEnvironment, _ body: () async throws -> T
    ) async rethrows -> T {
        try await GatehouseKitEnvironment.$taskOverride.withValue(environment) { try await body() }
    }

    /// The POSIX permission bits of a file or folder.
    package static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Records the userInfo of every notification of one name.
    package final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var received: [[String: Any]] = []
        private var observer: (any NSObjectProtocol)?
        private let center: NotificationCenter

        /// Records `name` as `environment` posts it (on `NotificationCenter.default`, shared by tests
        /// running in parallel, so other environments' notifications are filtered out by object).
        package init(_ name: Notification.Name, on environment: GatehouseKitEnvironment) {
            self.center = environment.notificationCenter
            observer = center.addObserver(forName: name, object: environment, queue: nil) { [weak self] note in
                var info: [String: Any] = [:]
                for (key, value) in note.userInfo ?? [:] { info["\(key)"] = value }
                self?.lock.withLock { self?.received.append(info) }
            }
        }

        deinit { if let observer { center.removeObserver(observer) } }

        package var all: [[String: Any]] { lock.withLock { received } }
        package var count: Int { all.count }

        /// Waits (polling, bounded) until `count` notifications have arrived; returns whether they did.
        ///
        /// Gives up only when `timeout` has passed *and* the loop has polled for that long: when the whole test
        /// process stalls (hundreds of tests starting at once on a loaded two-core machine stalled it for over
        /// 30 s), the wall clock runs out while nothing, the timer under test included, could run.
        package func wait(for count: Int, timeout: TimeInterval = 5) async -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            var polls = 0
            while self.count < count {
                if Date() > deadline && Double(polls) * 0.01 >= timeout { return false }
                try? await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
            return true
        }
    }

    /// Polls `condition` until it holds or `timeout` passes. The default only matters when a test fails, so it
    /// allows for a loaded two-core machine at the start of a full run.
    package static func eventually(timeout: TimeInterval = 600, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
