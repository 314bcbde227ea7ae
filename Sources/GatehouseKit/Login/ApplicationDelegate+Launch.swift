import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// Facebook's `UIApplicationDelegate` forwarding methods, so an app delegate written for FBSDKCoreKit
/// compiles unchanged. On UIKit they take `UIApplication`; elsewhere (Linux, AppKit) `AnyObject?`, because
/// there is no `UIApplication` to pass.
extension ApplicationDelegate {
    #if canImport(UIKit) && !os(watchOS)
    /// Facebook's launch hook: ``initializeSDK()``. Always true, as Facebook's returns.
    @discardableResult
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        initializeSDK()
        return true
    }

    /// The iOS 8 form of the open-URL hook; the source application and annotation are not needed.
    @discardableResult
    public func application(
        _ application: UIApplication, open url: URL, sourceApplication: String?, annotation: Any?
    ) -> Bool {
        handleOpen(url: url)
    }
    #else
    /// Facebook's launch hook: ``initializeSDK()``. Always true, as Facebook's returns.
    @discardableResult
    public func application(
        _ application: AnyObject?, didFinishLaunchingWithOptions launchOptions: [AnyHashable: Any]? = nil
    ) -> Bool {
        initializeSDK()
        return true
    }

    /// Facebook's open-URL hook: passes `url` to the login waiting for it (see ``handleOpen(url:)``).
    @discardableResult
    public func application(_ application: AnyObject?, open url: URL, options: [AnyHashable: Any] = [:]) -> Bool {
        handleOpen(url: url)
    }

    /// The older open-URL hook; the source application and annotation are not needed.
    @discardableResult
    public func application(_ application: AnyObject?, open url: URL, sourceApplication: String?, annotation: Any?)
        -> Bool
    {
        handleOpen(url: url)
    }
    #endif
}
