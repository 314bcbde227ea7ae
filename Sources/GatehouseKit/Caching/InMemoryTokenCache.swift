import Foundation

/// A token cache that forgets everything when the process ends: for tests, and for programs that must
/// not leave credentials on disk.
public final class InMemoryTokenCache: TokenCaching, @unchecked Sendable {
    private let lock = NSLock()
    private var _accessToken: AccessToken?
    private var _authenticationToken: AuthenticationToken?
    private var _tokenInformation: [String: String]?
    private var _pendingLogin: PendingLoginState?

    public init(accessToken: AccessToken? = nil, authenticationToken: AuthenticationToken? = nil) {
        _accessToken = accessToken
        _authenticationToken = authenticationToken
    }

    public var accessToken: AccessToken? {
        get { lock.withLock { _accessToken } }
        set { lock.withLock { _accessToken = newValue } }
    }

    public var authenticationToken: AuthenticationToken? {
        get { lock.withLock { _authenticationToken } }
        set { lock.withLock { _authenticationToken = newValue } }
    }

    public var tokenInformation: [String: String]? {
        get { lock.withLock { _tokenInformation } }
        set { lock.withLock { _tokenInformation = newValue } }
    }

    public var pendingLogin: PendingLoginState? {
        get { lock.withLock { _pendingLogin } }
        set { lock.withLock { _pendingLogin = newValue } }
    }
}
