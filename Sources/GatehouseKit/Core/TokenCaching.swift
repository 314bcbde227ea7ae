import Foundation

/// Where the current tokens persist between launches (Facebook's `TokenCaching`; the seeds' token cache).
///
/// Implementations: `FileTokenCache` (Linux default, mode 0600), `KeychainTokenCache` (Apple platforms),
/// `InMemoryTokenCache`, and the app's own (e.g. a remote cache).
public protocol TokenCaching: AnyObject, Sendable {
    var accessToken: AccessToken? { get set }
    var authenticationToken: AuthenticationToken? { get set }
    /// The seeds' `cacheTokenInformation:` hook: extra data the app keeps beside the token (its own user
    /// id, a server session). Optional: the default keeps nothing. Cleared with the tokens by `clearToken`-
    /// style log-outs only if the cache chooses to; the built-in caches keep it until set to nil.
    var tokenInformation: [String: String]? { get set }
    /// The login waiting for its callback, so a callback reaching a relaunched process can still finish
    /// it. Optional: the default keeps nothing, and such a callback is then dropped.
    var pendingLogin: PendingLoginState? { get set }
}

extension TokenCaching {
    /// Keeps nothing: caches written before this hook existed still conform.
    public var tokenInformation: [String: String]? {
        get { nil }
        set {}
    }

    /// Keeps nothing: a relaunch in the middle of a login then drops the callback, as before.
    public var pendingLogin: PendingLoginState? {
        get { nil }
        set {}
    }
}

/// What a started login must remember to finish from a callback after the app was relaunched (the
/// seeds' "handler set before handleOpenURL"; Facebook keeps these in the keychain).
public struct PendingLoginState: Codable, Sendable, Equatable {
    /// The `state.challenge` the callback must echo.
    public var challenge: String
    /// The PKCE verifier a returned code is redeemed with.
    public var codeVerifier: String
    /// The nonce expected in an id_token.
    public var nonce: String
    /// The `redirect_uri` the dialog got.
    public var redirectURI: String
    /// The permissions the login asked for.
    public var permissions: [String]
    /// `true` for Limited Login.
    public var isLimited: Bool
    /// When the login started: a callback for a login older than ``maximumAge`` is refused.
    public var startedAt: Date

    /// An hour: long enough to log in on a slow phone, short enough that a stale callback found in
    /// history cannot log anyone in.
    public static let maximumAge: TimeInterval = 3600

    public init(
        challenge: String, codeVerifier: String, nonce: String, redirectURI: String, permissions: [String],
        isLimited: Bool, startedAt: Date
    ) {
        self.challenge = challenge
        self.codeVerifier = codeVerifier
        self.nonce = nonce
        self.redirectURI = redirectURI
        self.permissions = permissions
        self.isLimited = isLimited
        self.startedAt = startedAt
    }
}
