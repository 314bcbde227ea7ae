import Foundation

/// A token cache that forgets everything when the process ends: for tests, and for programs that must
/// not leave credentials on disk.
public final class InMemoryTokenCache: TokenCaching, @unchecked Sendable {
    private let lock = NSLock()
    private var _accessToken: AccessToken?
    private var _authenticationToken: AuthenticationToken?

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
}
