import Foundation

/// One kind of login dialog, in the seeds' order of preference.
public enum LoginDialogKind: String, Sendable, CaseIterable {
    /// The seeds' Facebook-app switch: the dialog opens outside the app and returns on the app's
    /// `fb{appID}{suffix}://` URL scheme, with the nonce exchange (``URLSchemeLoginPresenter``).
    case nativeApp
    /// The seeds' Mobile Safari dialog: `ASWebAuthenticationSession` on Apple platforms, the system
    /// browser elsewhere.
    case browser
    /// The seeds' embedded web view: a `WKWebView` where one exists, the loopback browser flow on Linux
    /// (`GatehouseKitLoopback`).
    case webView
    /// Device login: a code typed on another device. The last resort for machines without a browser.
    case device

    /// What a token from this dialog records as its ``AccessToken/loginType``.
    public var loginType: LoginType {
        switch self {
        case .nativeApp: .facebookApplication
        case .browser: .facebookViaSafari
        case .webView: .webView
        case .device: .device
        }
    }
}

/// Which login dialogs a session may use, and in which order (the seeds' `FBSessionLoginBehavior`).
///
/// The SDK tries the behaviour's dialogs in order: one that is not available on this device (no URL
/// scheme, no browser, no web view, no client token) is skipped for the next; one that turns out to be
/// unavailable when shown (CoreError 9 or 12) also falls through. A cancel never falls back: the
/// person said no, and showing them another dialog would ask again.
public enum LoginBehavior: Sendable, CaseIterable {
    /// The seeds' default flow (app, then browser), then device login for headless machines. No web view.
    case withNoFallbackToWebView
    /// App, browser, embedded web view, then device login.
    case withFallbackToWebView
    /// The embedded web view only.
    case forcingWebView
    /// The browser only.
    case forcingSafari
    /// The seeds' iOS 6 system account first. Gatehouse has no system account, so this is the default flow.
    case useSystemAccountIfPresent
    /// Device login only.
    case forcingDeviceLogin

    /// The dialogs to try, in order.
    public var dialogs: [LoginDialogKind] {
        switch self {
        case .withNoFallbackToWebView, .useSystemAccountIfPresent: [.nativeApp, .browser, .device]
        case .withFallbackToWebView: [.nativeApp, .browser, .webView, .device]
        case .forcingWebView: [.webView]
        case .forcingSafari: [.browser]
        case .forcingDeviceLogin: [.device]
        }
    }
}

/// One login dialog a ``LoginBehavior`` can choose: it says whether it can show here, and runs a login.
public protocol LoginBehaviorPresenting: Sendable {
    /// Which dialog this is.
    var kind: LoginDialogKind { get }
    /// Whether the dialog can be shown on this device now (checked just before it would be).
    func isAvailable() async -> Bool
    /// Runs the dialog. Report a dialog that could not be shown after all as `.failed` with
    /// CoreError 9 (`dialogUnavailable`) or 12 (`browserUnavailable`): the next dialog is then tried.
    func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async -> SessionLoginOutcome
}
