import Foundation

/// How long things live, as Facebook documents them.
package enum Lifetimes {
    /// Tokens from the dialog's fragment flows and mobile flows.
    package static let shortLivedToken: TimeInterval = 2 * 3600
    /// Tokens from a server-side code exchange or `fb_exchange_token`.
    package static let longLivedToken: TimeInterval = 60 * 86400
    /// Data access lasts 90 days after the last login.
    package static let dataAccess: TimeInterval = 90 * 86400
    /// Authorization codes.
    package static let authorizationCode: TimeInterval = 10 * 60
    /// Logged-in browsers.
    package static let browserSession: TimeInterval = 30 * 86400
    /// How recently a password must have been typed to satisfy `auth_type=reauthenticate`.
    package static let reauthenticationWindow: TimeInterval = 5 * 60
}
