import Foundation

/// The seeds' (Facebook SDK 3.x) token cache, as a class an app subclasses: override the hooks
/// `cacheFBAccessTokenData(_:)`, `fetchFBAccessTokenData()` and `clearToken()` (or the dictionary-level
/// `cacheTokenInformation(_:)` / `fetchTokenInformation()`), then hand the instance to a session or an
/// environment as its ``TokenCaching``.
///
/// The SDK reaches the hooks through ``TokenCaching``: storing a token calls `cacheFBAccessTokenData(_:)`,
/// reading one `fetchFBAccessTokenData()`, and clearing it (`closeAndClearTokenInformation`, a log-out)
/// `clearToken()`, the moments 3.x called them. Unlike 3.x's, which wrote `NSUserDefaults` under
/// `FBAccessTokenInformationKey`, the base class keeps the dictionary in memory: it exists to be subclassed
/// (``FileTokenCache`` and ``KeychainTokenCache`` are the persistent caches).
open class FBSessionTokenCachingStrategy: TokenCaching, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String: Any]?
    private var _authenticationToken: AuthenticationToken?

    public init() {}

    // MARK: 3.x hooks

    /// Stores the token; by default as its ``AccessToken/dictionary()`` through ``cacheTokenInformation(_:)``.
    open func cacheFBAccessTokenData(_ accessToken: FBAccessTokenData) {
        cacheTokenInformation(accessToken.dictionary())
    }

    /// The stored token, or nil; by default read through ``fetchTokenInformation()``.
    open func fetchFBAccessTokenData() -> FBAccessTokenData? {
        fetchTokenInformation().flatMap(FBAccessTokenData.createTokenFromDictionary)
    }

    /// Forgets the stored token.
    open func clearToken() {
        lock.withLock { stored = nil }
    }

    /// Stores a token-information dictionary (Facebook's keys, plus anything the app adds).
    open func cacheTokenInformation(_ tokenInformation: [String: Any]) {
        lock.withLock { stored = tokenInformation }
    }

    /// The stored token-information dictionary, or nil.
    open func fetchTokenInformation() -> [String: Any]? {
        lock.withLock { stored }
    }

    /// 3.x's check that a dictionary holds a usable token: a non-empty token string and an expiration date.
    public static func isValidTokenInformation(_ tokenInformation: [String: Any]) -> Bool {
        (tokenInformation[FBTokenInformationTokenKey] as? String).map { !$0.isEmpty } == true
            && tokenInformation[FBTokenInformationExpirationDateKey] is Date
    }

    // MARK: TokenCaching

    /// Reads through ``fetchFBAccessTokenData()``; writing a token calls ``cacheFBAccessTokenData(_:)``,
    /// writing nil ``clearToken()``.
    public var accessToken: AccessToken? {
        get { fetchFBAccessTokenData() }
        set {
            if let newValue { cacheFBAccessTokenData(newValue) } else { clearToken() }
        }
    }

    /// Kept in memory: 3.x had no id_token.
    public var authenticationToken: AuthenticationToken? {
        get { lock.withLock { _authenticationToken } }
        set { lock.withLock { _authenticationToken = newValue } }
    }
}
