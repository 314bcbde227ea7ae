import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// Facebook's `FBSDKApplicationObserving`: an object (another Facebook kit, or the app) that hears the
/// URLs and activations `ApplicationDelegate` is given. Every method is optional, as in Facebook's protocol.
public protocol FBSDKApplicationObserving: AnyObject {
    /// A URL no waiting login claimed; true if this observer handled it.
    func application(_ application: AnyObject?, open url: URL?, sourceApplication: String?, annotation: Any?) -> Bool
    func applicationDidBecomeActive(_ application: AnyObject?)
}

extension FBSDKApplicationObserving {
    public func application(_ application: AnyObject?, open url: URL?, sourceApplication: String?, annotation: Any?)
        -> Bool
    { false }
    public func applicationDidBecomeActive(_ application: AnyObject?) {}
}

extension ApplicationDelegate {
    /// Adds an observer (held weakly, as Facebook's hash table holds them); adding one twice keeps one.
    public func addObserver(_ observer: any FBSDKApplicationObserving) {
        withObservers { list in
            list.removeAll { $0.value == nil || $0.value === observer }
            list.append(WeakApplicationObserver(value: observer))
        }
    }

    public func removeObserver(_ observer: any FBSDKApplicationObserving) {
        withObservers { $0.removeAll { $0.value == nil || $0.value === observer } }
    }

    /// The live observers, in the order they were added.
    var applicationObservers: [any FBSDKApplicationObserving] { withObservers { $0.compactMap(\.value) } }

    #if !(canImport(UIKit) && !os(watchOS))
    /// Facebook's foreground hook: see ``handleDidBecomeActive()``.
    public func applicationDidBecomeActive(_ application: AnyObject?) {
        handleDidBecomeActive()
    }
    #endif

    #if canImport(UIKit) && !os(watchOS)
    /// Facebook's universal-link hook. GatehouseKit's login callbacks arrive as URL-scheme or loopback
    /// URLs, so a browsing-web activity is passed on as an opened URL and anything else is not handled.
    public func application(_ application: UIApplication, continue userActivity: NSUserActivity) -> Bool {
        guard userActivity.activityType == NSUserActivityTypeBrowsingWeb, let url = userActivity.webpageURL else {
            return false
        }
        return handleOpen(url: url)
    }
    #endif
}

struct WeakApplicationObserver {
    weak var value: (any FBSDKApplicationObserving)?
}
