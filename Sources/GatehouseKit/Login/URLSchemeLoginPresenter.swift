import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Shows the dialog in the system browser and receives the callback on the app's URL scheme,
/// `fb{appID}{suffix}://authorize/` (Facebook's `browser_auth` flow).
///
/// The app forwards opened URLs and foreground returns through `ApplicationDelegate.shared` (or calls
/// `handleOpen(url:)` / `handleDidBecomeActive()` here directly).
public final class URLSchemeLoginPresenter: LoginDialogPresenting, LoginURLHandling, @unchecked Sendable {
    /// Opens a URL outside the app; false when it could not.
    public typealias Opener = @Sendable (URL) async -> Bool

    private struct Waiting {
        let id: Int
        let continuation: CheckedContinuation<URL?, any Error>
        /// The browser was opened, so a return to the app without a callback means "cancelled".
        var opened = false
    }

    private let lock = NSLock()
    private var waiting: Waiting?
    private var cancelledBeforeWaiting: Set<Int> = []
    private var lastID = 0
    private let fixedEnvironment: GatehouseKitEnvironment?
    private let opener: Opener
    private let hasOwnOpener: Bool
    private let applicationDelegate: ApplicationDelegate

    /// - Parameters:
    ///   - environment: where the app id and scheme suffix come from; nil means `GatehouseKitEnvironment.current`.
    ///   - applicationDelegate: the router of opened URLs this presenter registers with while waiting.
    ///   - opener: nil means the system's (`UIApplication.open` / `NSWorkspace.open`; none on Linux).
    public init(
        environment: GatehouseKitEnvironment? = nil, applicationDelegate: ApplicationDelegate = .shared,
        opener: Opener? = nil
    ) {
        fixedEnvironment = environment
        self.applicationDelegate = applicationDelegate
        self.opener = opener ?? Self.systemOpener
        hasOwnOpener = opener != nil
    }

    /// Whether this presenter can show a dialog: the app has a URL scheme (an app id), and URLs can be
    /// opened (an opener was given, or the platform has UIKit or AppKit; Linux has no system opener).
    public var isAvailable: Bool {
        guard scheme != nil else { return false }
        #if (canImport(UIKit) && !os(watchOS)) || canImport(AppKit)
        return true
        #else
        return hasOwnOpener
        #endif
    }

    private var scheme: String? { (fixedEnvironment ?? .current).settings.appURLScheme }

    /// `fb{appID}{suffix}://authorize/`; CoreError 2 without an app id.
    public func prepare() async throws -> String {
        guard let scheme else {
            throw CoreError(.invalidArgument, message: "Settings.appID (FacebookAppID) is not set")
        }
        return scheme + "://authorize/"
    }

    /// Opens `url` and waits for `handleOpen(url:)`. A newer `present` makes this one return nil;
    /// a failed open throws CoreError 12 (`browserUnavailable`).
    public func present(_ url: URL) async throws -> URL? {
        let id = lock.withLock {
            lastID += 1; return lastID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (previous, cancelled): (Waiting?, Bool) = lock.withLock {
                    if cancelledBeforeWaiting.remove(id) != nil { return (nil, true) }
                    let previous = waiting
                    waiting = Waiting(id: id, continuation: continuation)
                    return (previous, false)
                }
                if cancelled { return continuation.resume(returning: nil) }
                previous?.continuation.resume(returning: nil)
                applicationDelegate.setPendingURLOpener(self)
                let opener = self.opener
                Task { self.didOpen(id: id, success: await opener(url)) }
            }
        } onCancel: {
            let ended = lock.withLock {
                if waiting?.id == id { return true }
                cancelledBeforeWaiting.insert(id)
                return false
            }
            if ended { resume(id: id, with: .success(nil)) }
        }
    }

    /// Accepts `fb{appID}{suffix}://authorize…` for the waiting login. Host `no-op` is swallowed (true).
    /// Any other URL arriving mid-login interrupts it (Facebook's CoreError 13), reported as cancelled.
    public func handleOpen(url: URL) -> Bool {
        let isOurScheme = scheme.map { url.scheme?.lowercased() == $0.lowercased() } ?? false
        let host = url.host?.lowercased()
        if isOurScheme, host == "no-op" { return true }
        guard let id = lock.withLock({ waiting?.id }) else { return false }
        if isOurScheme, host == "authorize" {
            return resume(id: id, with: .success(url))
        }
        resume(id: id, with: .success(nil))
        return false
    }

    /// Whether the waiting login's dialog was opened (so becoming active again would cancel it).
    var isDialogOpen: Bool { lock.withLock { waiting?.opened == true } }

    /// A login whose browser was opened but that got no callback ends as cancelled.
    public func handleDidBecomeActive() {
        guard let id = lock.withLock({ waiting?.opened == true ? waiting?.id : nil }) else { return }
        resume(id: id, with: .success(nil))
    }

    private func didOpen(id: Int, success: Bool) {
        if success {
            lock.withLock { if waiting?.id == id { waiting?.opened = true } }
        } else {
            resume(
                id: id, with: .failure(CoreError(.browserUnavailable, message: "the login dialog could not be opened")))
        }
    }

    /// Ends wait `id` if it is still the waiting one; true when it was.
    @discardableResult
    private func resume(id: Int, with result: Result<URL?, any Error>) -> Bool {
        let ended: Waiting? = lock.withLock {
            guard waiting?.id == id else { return nil }
            defer { waiting = nil }
            return waiting
        }
        guard let ended else { return false }
        applicationDelegate.clearPendingURLOpener(self)
        ended.continuation.resume(with: result)
        return true
    }

    /// The platform's way to open a URL outside the app.
    public static let systemOpener: Opener = { url in
        #if canImport(UIKit) && !os(watchOS)
        return await openOnMainActor(url)
        #elseif canImport(AppKit)
        return await openOnMainActor(url)
        #else
        return false
        #endif
    }

    #if canImport(UIKit) && !os(watchOS)
    @MainActor private static func openOnMainActor(_ url: URL) async -> Bool {
        await UIApplication.shared.open(url)
    }
    #elseif canImport(AppKit)
    @MainActor private static func openOnMainActor(_ url: URL) async -> Bool {
        NSWorkspace.shared.open(url)
    }
    #endif
}
