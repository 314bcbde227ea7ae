import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// The app-level entry for login callbacks (Facebook's `ApplicationDelegate.shared`).
///
/// Forward every URL the app is opened with to `handleOpen(url:)` and every return to the foreground
/// to `handleDidBecomeActive()`; a URL-scheme login waiting for its callback receives them (Facebook's
/// `_BridgeAPI` and its `pendingURLOpener`). Boot-time duties (`initializeSDK()`) belong to the
/// session layer and can be added in an extension.
public final class ApplicationDelegate: @unchecked Sendable {
    /// The instance apps forward to.
    public static let shared = ApplicationDelegate()

    private let lock = NSLock()
    private var pendingURLOpener: (any LoginURLHandling)?
    private var observers: [WeakApplicationObserver] = []

    /// A separate instance, for tests and for programs that route URLs themselves.
    public init() {}

    /// Passes `url` to the login waiting for its callback; true when it was that login's callback.
    ///
    /// With no login waiting in this process (the app was relaunched mid-login), a callback for the login
    /// remembered in the token cache is completed in the background: `AccessToken.current` changes and a
    /// `Session` waiting with its handler opens. ``completePendingLogin(url:environment:)`` is the awaitable form.
    @discardableResult
    public func handleOpen(url: URL) -> Bool {
        let handled =
            if let opener = lock.withLock({ pendingURLOpener }) { opener.handleOpen(url: url) } else {
                resumePendingLogin(url: url)
            }
        if handled { return true }
        // Not a login's: the observers (Facebook's other kits, or the app) may want it.
        return applicationObservers.contains { $0.application(nil, open: url, sourceApplication: nil, annotation: nil) }
    }

    /// The app is active again: a login still waiting for its callback ends as cancelled.
    public func handleDidBecomeActive() {
        lock.withLock { pendingURLOpener }?.handleDidBecomeActive()
        applicationObservers.forEach { $0.applicationDidBecomeActive(nil) }
    }

    func withObservers<T>(_ body: (inout [WeakApplicationObserver]) -> T) -> T {
        lock.withLock { body(&observers) }
    }

    /// Whether a login is waiting for its callback.
    public var isLoginPending: Bool { lock.withLock { pendingURLOpener != nil } }

    func setPendingURLOpener(_ opener: any LoginURLHandling) {
        lock.withLock { pendingURLOpener = opener }
    }

    /// Clears the pending opener if it is still `opener` (a newer login may have replaced it).
    func clearPendingURLOpener(_ opener: any LoginURLHandling) {
        lock.withLock {
            if pendingURLOpener === opener { pendingURLOpener = nil }
        }
    }
}

#if canImport(UIKit) && !os(watchOS)
extension ApplicationDelegate {
    /// Forward `UIApplicationDelegate.application(_:open:options:)` (or the scene's `openURLContexts`) here.
    @discardableResult
    public func application(
        _ application: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]
    ) -> Bool {
        handleOpen(url: url)
    }

    /// Forward `applicationDidBecomeActive(_:)` (or the scene's `sceneDidBecomeActive`) here.
    public func applicationDidBecomeActive(_ application: UIApplication) {
        handleDidBecomeActive()
    }
}
#endif
