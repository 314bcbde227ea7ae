import Foundation
import GatehouseKit

extension LoginManagerDialog {
    /// The seeds' embedded web view on Linux and desktops: the RFC 8252 loopback flow in the system
    /// browser, as a ``LoginBehavior`` dialog of kind `.webView`. It is available when a browser can be
    /// shown (a graphical session, or `$BROWSER`); headless machines fall through to device login.
    ///
    /// Register it once: `Session.loginBehaviorPresenters = LoginBehaviorLogin.platformPresenters() + [.loopback()]`.
    public static func loopback(
        browser: SystemBrowserOpener = SystemBrowserOpener(), environment: GatehouseKitEnvironment? = nil
    ) -> LoginManagerDialog {
        let manager = LoginManager(
            defaultAudience: .friends, presenter: LoopbackLoginPresenter(browser: browser), environment: environment)
        return LoginManagerDialog(kind: .webView, manager: manager) { browser.hasGraphicalSession }
    }
}
