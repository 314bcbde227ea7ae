import Foundation

/// How the person logged in (the seeds' `FBSessionLoginType`, which `FBAccessTokenData.loginType` carried).
///
/// Gatehouse's dialogs map onto the seeds' names: the `fb{appID}://` app switch is
/// `.facebookApplication`, the system browser (or `ASWebAuthenticationSession`) is `.facebookViaSafari`,
/// the embedded web view (or the loopback browser flow on Linux) is `.webView`, and device login is `.device`.
public enum LoginType: String, Codable, Sendable, CaseIterable {
    /// Unknown: a token made by hand, refreshed, or restored from a cache written before this field.
    case none
    /// iOS 6 system account: never produced by Gatehouse, kept so seed code compiles.
    case systemAccount
    case facebookApplication
    case facebookViaSafari
    case webView
    case testUser
    /// Device login (a code typed on another device).
    case device
}
