import GatehouseCore
import Foundation

/// The way back to a dialog from one of its forms (the login form, the development picker, the account state and
/// login code pages), and the markers Gatehouse adds to the dialog's query on the way:
///
/// - `gh_login_error=1`: the password was wrong; the dialog shows its login form with the error.
/// - `gh_reauth=<epoch>`: the session that `authenticatedAt` second started has just proved the password, so an
///   `auth_type=reauthenticate` dialog goes on instead of asking again.
///
/// The markers are Gatehouse's own: ``carried(_:)`` strips them from every query a form carries, so they never
/// pile up or reach the app.
struct DialogReturn: Sendable, Equatable {
    /// The feed or requests dialog the login form was shown for; nil: the login dialog.
    let kind: SocialDialogKind?
    /// The dialog's query, without Gatehouse's markers.
    let query: String

    static let loginErrorMarker = "gh_login_error"
    static let reauthMarker = "gh_reauth"

    init(kind: SocialDialogKind? = nil, rawQuery: String) {
        self.kind = kind
        query = Self.carried(rawQuery)
    }

    /// `/dialog/oauth`, or the social dialog's path.
    var path: String { kind.map { PagePath.Dialog.prefix + $0.rawValue } ?? PagePath.Dialog.oauth }

    /// The dialog again, as the app opened it: its consent step, or its login form when nobody is logged in.
    var url: String { path + "?" + query }

    /// The dialog's login form again, saying the email or password was wrong.
    var afterWrongPassword: String { url + "&\(Self.loginErrorMarker)=1" }

    /// `next` once `session` has started: a dialog's address carries the session's mark, any other page's stays as
    /// it is.
    static func afterLogin(_ next: String, session: BrowserSessionRecord) -> String {
        guard next.hasPrefix(PagePath.Dialog.prefix) else { return next }
        return next + (next.contains("?") ? "&" : "?") + "\(reauthMarker)=\(mark(session))"
    }

    /// Whether the dialog's query says the password was just refused.
    static func showsLoginError(_ query: String) -> Bool {
        query.split(separator: "&").contains { $0.hasPrefix(loginErrorMarker + "=") }
    }

    /// Whether the dialog's query carries the mark of `session`, set less than
    /// ``Lifetimes/reauthenticationWindow`` before `now`: the password was typed for this very dialog.
    static func justAuthenticated(_ query: [String: String], session: BrowserSessionRecord?, now: Date) -> Bool {
        guard let session, let text = query[reauthMarker], let epoch = Int(text) else { return false }
        return epoch == mark(session)
            && now.timeIntervalSince(session.authenticatedAt) < Lifetimes.reauthenticationWindow
    }

    /// The dialog query without Gatehouse's own step markers.
    static func carried(_ raw: String) -> String {
        raw.split(separator: "&").filter { !$0.hasPrefix("gh_") }.joined(separator: "&")
    }

    private static func mark(_ session: BrowserSessionRecord) -> Int {
        Int(session.authenticatedAt.timeIntervalSince1970)
    }
}
