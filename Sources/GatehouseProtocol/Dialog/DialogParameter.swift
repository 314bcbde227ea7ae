/// The login dialog's query parameters (`/dialog/oauth`) by the names Facebook's SDKs send: written once, read by
/// the SDK that builds the dialog URL (`LoginDialogURLBuilder`) and by the server that parses it (`DialogRequest`),
/// so the two cannot drift apart.
package enum DialogParameter {
    package static let clientID = "client_id"
    package static let redirectURI = "redirect_uri"
    package static let state = "state"
    package static let scope = "scope"
    package static let responseType = "response_type"
    package static let returnScopes = "return_scopes"
    package static let authType = "auth_type"
    package static let authNonce = "auth_nonce"
    package static let nonce = "nonce"
    package static let codeChallenge = "code_challenge"
    package static let codeChallengeMethod = "code_challenge_method"
    package static let defaultAudience = "default_audience"
    package static let display = "display"
    /// `tp=ios_14_do_not_track`: Limited Login.
    package static let trackingPreference = "tp"
    package static let limitedLoginTrackingValue = "ios_14_do_not_track"
    package static let fastAppSwitch = "ios_fast_app_switch"
    package static let userTokenNonce = "user_token_nonce"
    package static let localClientID = "local_client_id"
    package static let messengerPageID = "messenger_page_id"
    package static let sdk = "sdk"
    package static let sdkVersion = "sdk_version"
    package static let fbAppPresent = "fbapp_pres"
    package static let ies = "ies"
    package static let clientTime = "cbt"
    package static let e2e = "e2e"
}

/// Paths both sides name: the SDK calls them, the server routes them.
package enum WirePath {
    /// The login dialog, under a version segment (`/v27.0/dialog/oauth`) or without one.
    package static let loginDialog = "dialog/oauth"
    /// The token endpoint: code exchange, client credentials, `fb_exchange_token`.
    package static let accessToken = "oauth/access_token"
    /// Token inspection.
    package static let debugToken = "debug_token"
}
