import Foundation

/// Facebook's `LoginManager` URL-opening members (its `URLOpening` conformance), for apps that route
/// URLs to the login manager rather than to `ApplicationDelegate`. The login callback is
/// `fb{appID}{suffix}://authorize…`; every call hands it to ``ApplicationDelegate/shared``, where the
/// waiting login (or the one remembered across a relaunch) picks it up.
extension LoginManager {
    /// A new manager, as Facebook's factory returns.
    public static func makeOpener() -> LoginManager { LoginManager() }

    /// Whether `url` is this app's login callback (`fb{appID}{suffix}://authorize`).
    public func isAuthenticationURL(_ url: URL) -> Bool {
        guard let scheme = environment.settings.appURLScheme else { return false }
        return url.scheme?.lowercased() == scheme.lowercased() && url.host?.lowercased() == "authorize"
    }

    /// A login callback goes no further than the SDK.
    public func shouldStopPropagation(of url: URL) -> Bool { isAuthenticationURL(url) }

    public func canOpen(_ url: URL, for application: AnyObject?, sourceApplication: String?, annotation: Any?) -> Bool {
        isAuthenticationURL(url)
    }

    /// Completes the waiting login with `url` if it is this app's login callback.
    public func application(_ application: AnyObject?, open url: URL?, sourceApplication: String?, annotation: Any?)
        -> Bool
    {
        guard let url, isAuthenticationURL(url) else { return false }
        return ApplicationDelegate.shared.handleOpen(url: url)
    }

    /// The app came back without a callback: the waiting login ends as cancelled.
    public func applicationDidBecomeActive(_ application: AnyObject?) {
        ApplicationDelegate.shared.handleDidBecomeActive()
    }
}
