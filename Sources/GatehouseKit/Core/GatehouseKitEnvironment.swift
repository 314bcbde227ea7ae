import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the cached profile persists between launches (Facebook keeps it in UserDefaults).
public protocol ProfileCaching: AnyObject, Sendable {
    var profile: Profile? { get set }
}

/// Everything the SDK's `.current` statics and default initialisers depend on.
///
/// Facebook's API is static (`AccessToken.current`, `Profile.current`, `Settings.shared`). Here those
/// statics read one replaceable environment, so tests and programs inject their own clock, caches,
/// settings and URL session: `GatehouseKitEnvironment.current = GatehouseKitEnvironment(...)`.
public final class GatehouseKitEnvironment: @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = GatehouseKitEnvironment()

    /// The environment in use.
    public static var current: GatehouseKitEnvironment {
        get { lock.lock(); defer { lock.unlock() }; return installed }
        set { lock.lock(); installed = newValue; lock.unlock() }
    }

    public let settings: Settings
    public let clock: any SDKClock
    public let notificationCenter: NotificationCenter
    public let urlSession: URLSession

    private let lock = NSLock()
    private var _tokenCache: (any TokenCaching)?
    private var _profileCache: (any ProfileCaching)?
    private var loadedAccessToken = false, loadedAuthenticationToken = false, loadedProfile = false
    private var _accessToken: AccessToken?
    private var _authenticationToken: AuthenticationToken?
    private var _profile: Profile?
    private var expiryTask: Task<Void, Never>?

    /// - Parameters:
    ///   - tokenCache: nil keeps tokens in memory only.
    public init(
        settings: Settings = Settings(), clock: any SDKClock = SystemSDKClock(), tokenCache: (any TokenCaching)? = nil,
        profileCache: (any ProfileCaching)? = nil, notificationCenter: NotificationCenter = NotificationCenter(),
        urlSession: URLSession = URLSession(configuration: .ephemeral)
    ) {
        self.settings = settings
        self.clock = clock
        self._tokenCache = tokenCache
        self._profileCache = profileCache
        self.notificationCenter = notificationCenter
        self.urlSession = urlSession
    }

    private func locked<T>(_ body: () -> T) -> T { lock.lock(); defer { lock.unlock() }; return body() }

    /// The token cache; replacing it makes the next read of `.current` come from the new cache.
    public var tokenCache: (any TokenCaching)? {
        get { locked { _tokenCache } }
        set { locked { _tokenCache = newValue; loadedAccessToken = false; loadedAuthenticationToken = false } }
    }

    public var profileCache: (any ProfileCaching)? {
        get { locked { _profileCache } }
        set { locked { _profileCache = newValue; loadedProfile = false } }
    }

    // MARK: Access token

    var currentAccessToken: AccessToken? {
        locked {
            if !loadedAccessToken {
                _accessToken = _tokenCache?.accessToken
                loadedAccessToken = true
            }
            return _accessToken
        }
    }

    /// Sets the token, writes the cache, posts `.AccessTokenDidChange` and (re)arms the expiry timer.
    func setCurrentAccessToken(_ token: AccessToken?) {
        let old: AccessToken? = locked {
            let old = loadedAccessToken ? _accessToken : _tokenCache?.accessToken
            _accessToken = token
            loadedAccessToken = true
            _tokenCache?.accessToken = token
            return old
        }
        armExpiryTimer(for: token)
        guard old != token else { return }
        var info: [String: Any] = [:]
        if let token { info[AccessTokenChangeNewKey] = token }
        if let old { info[AccessTokenChangeOldKey] = old }
        let oldActive = old.map { clock.now() < $0.expirationDate } ?? false
        if old?.userID != token?.userID || !oldActive { info[AccessTokenDidChangeUserIDKey] = true }
        notificationCenter.post(name: .AccessTokenDidChange, object: nil, userInfo: info)
    }

    /// Posts the expiry notification (old == new, `AccessTokenDidExpireKey`) if the current token has expired.
    /// The timer calls this at the expiration date; tests with an injected clock call it directly.
    public func checkAccessTokenExpiry() {
        guard let token = currentAccessToken, clock.now() >= token.expirationDate else { return }
        notificationCenter.post(name: .AccessTokenDidChange, object: nil, userInfo: [
            AccessTokenChangeNewKey: token, AccessTokenChangeOldKey: token, AccessTokenDidExpireKey: true,
        ])
    }

    private func armExpiryTimer(for token: AccessToken?) {
        let task: Task<Void, Never>? = token.flatMap { token in
            let delay = token.expirationDate.timeIntervalSince(clock.now())
            guard delay > 0, delay < 365 * 86400 else { return nil }
            return Task { [weak self] in
                try? await Task.sleep(for: .seconds(delay))
                guard !Task.isCancelled else { return }
                self?.checkAccessTokenExpiry()
            }
        }
        let previous: Task<Void, Never>? = locked {
            let previous = expiryTask
            expiryTask = task
            return previous
        }
        previous?.cancel()
    }

    // MARK: Authentication token

    var currentAuthenticationToken: AuthenticationToken? {
        locked {
            if !loadedAuthenticationToken {
                _authenticationToken = _tokenCache?.authenticationToken
                loadedAuthenticationToken = true
            }
            return _authenticationToken
        }
    }

    func setCurrentAuthenticationToken(_ token: AuthenticationToken?) {
        locked {
            _authenticationToken = token
            loadedAuthenticationToken = true
            _tokenCache?.authenticationToken = token
        }
    }

    // MARK: Profile

    /// The current profile, loaded from the profile cache on first use.
    public var currentProfile: Profile? {
        locked {
            if !loadedProfile {
                _profile = _profileCache?.profile
                loadedProfile = true
            }
            return _profile
        }
    }

    /// Stores the profile and writes the cache; returns the previous one (the caller posts `.ProfileDidChange`).
    @discardableResult
    public func replaceCurrentProfile(_ profile: Profile?) -> Profile? {
        locked {
            let old = loadedProfile ? _profile : _profileCache?.profile
            _profile = profile
            loadedProfile = true
            _profileCache?.profile = profile
            return old
        }
    }
}
