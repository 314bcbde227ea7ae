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

    /// Overrides `current` for one task and the tasks it starts, without touching the process-wide one,
    /// so tests running in parallel each see their own environment:
    /// `GatehouseKitEnvironment.$taskOverride.withValue(env) { ... }`.
    @TaskLocal public static var taskOverride: GatehouseKitEnvironment?

    /// The environment in use: the task's override if one is bound, else the installed one.
    /// Setting it installs a process-wide environment (an override still wins inside its task).
    public static var current: GatehouseKitEnvironment {
        get {
            if let override = taskOverride { return override }
            lock.lock(); defer { lock.unlock() }; return installed
        }
        set { lock.lock(); installed = newValue; lock.unlock() }
    }

    public let settings: Settings
    public let clock: any SDKClock
    /// Where the SDK posts `.AccessTokenDidChange` and `.ProfileDidChange`: `NotificationCenter.default`,
    /// where Facebook's SDK posts them, so an app's observer (seed 003's) hears them.
    public var notificationCenter: NotificationCenter { .default }
    public let urlSession: URLSession

    private let lock = NSLock()
    private var _tokenCache: (any TokenCaching)?
    private var _profileCache: (any ProfileCaching)?
    private var loadedAccessToken = false, loadedAuthenticationToken = false, loadedProfile = false
    private var _accessToken: AccessToken?
    private var _authenticationToken: AuthenticationToken?
    private var _profile: Profile?
    private var expiryTask: Task<Void, Never>?
    private var _loginAttempter: (any GraphErrorRecoveryAttempting)?

    /// - Parameters:
    ///   - tokenCache: nil keeps tokens in memory only.
    public init(
        settings: Settings = Settings(), clock: any SDKClock = SystemSDKClock(), tokenCache: (any TokenCaching)? = nil,
        profileCache: (any ProfileCaching)? = nil, urlSession: URLSession = .gatehouseUncached()
    ) {
        self.settings = settings
        self.clock = clock
        self._tokenCache = tokenCache
        self._profileCache = profileCache
        self.urlSession = urlSession
    }

    /// Posts one of the SDK's notifications on `NotificationCenter.default` with this environment as its
    /// object. An app's observer (object nil, as Facebook's samples register) hears every change; the SDK's
    /// own observers (``observe(_:using:)``) hear only their environment's, so environments side by side
    /// (tests in parallel, a seed-000 session with its own cache) do not act on each other's tokens.
    public func post(_ name: Notification.Name, userInfo: [String: Any]) {
        notificationCenter.post(name: name, object: self, userInfo: userInfo)
    }

    /// Observes `name` as posted by this environment only; remove the result with
    /// `notificationCenter.removeObserver(_:)`.
    public func observe(_ name: Notification.Name, using block: @escaping @Sendable (Notification) -> Void)
        -> any NSObjectProtocol
    {
        // Filtered here rather than with `object:`, which swift-corelibs-foundation may hold strongly:
        // an observer must not keep its environment alive.
        notificationCenter.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
            guard let self, let sender = note.object as AnyObject?, sender === self else { return }
            block(note)
        }
    }

    private func locked<T>(_ body: () -> T) -> T { lock.lock(); defer { lock.unlock() }; return body() }

    /// The token cache; replacing it makes the next read of `.current` come from the new cache.
    public var tokenCache: (any TokenCaching)? {
        get { locked { _tokenCache } }
        set {
            locked {
                _tokenCache = newValue; loadedAccessToken = false; loadedAuthenticationToken = false
            }
        }
    }

    public var profileCache: (any ProfileCaching)? {
        get { locked { _profileCache } }
        set {
            locked {
                _profileCache = newValue; loadedProfile = false
            }
        }
    }

    /// What `ErrorRecovery.loginAttempter` reads and writes. It belongs to the environment, not the process,
    /// so a connection in one environment never hands its errors to another environment's login (two tests in
    /// parallel, or a second account's session beside the app's).
    var loginAttempter: (any GraphErrorRecoveryAttempting)? {
        get { locked { _loginAttempter } }
        set { locked { _loginAttempter = newValue } }
    }

    // MARK: Access token

    var currentAccessToken: AccessToken? {
        let (token, restored): (AccessToken?, Bool) = locked {
            guard !loadedAccessToken else { return (_accessToken, false) }
            _accessToken = _tokenCache?.accessToken
            loadedAccessToken = true
            return (_accessToken, true)
        }
        // A token restored from the cache (a new launch) gets its expiry timer too.
        if restored { armExpiryTimer(for: token) }
        return token
    }

    /// Sets the token, writes the cache, posts `.AccessTokenDidChange` and (re)arms the expiry timer.
    func setCurrentAccessToken(_ token: AccessToken?, cause: (any Error)? = nil) {
        let old: AccessToken? = locked {
            let old = loadedAccessToken ? _accessToken : _tokenCache?.accessToken
            _accessToken = token
            loadedAccessToken = true
            _tokenCache?.accessToken = token
            return old
        }
        armExpiryTimer(for: token)
        postAccessTokenChange(old: old, new: token, cause: cause)
    }

    /// Replaces the token cache and makes `AccessToken.current` the new cache's token, posting
    /// `.AccessTokenDidChange` when it differs: how an app switches between people's cached tokens.
    /// (Assigning `tokenCache` instead changes `.current` silently on its next read.)
    public func switchTokenCache(to cache: (any TokenCaching)?) {
        let (old, new): (AccessToken?, AccessToken?) = locked {
            let old = loadedAccessToken ? _accessToken : _tokenCache?.accessToken
            _tokenCache = cache
            _accessToken = cache?.accessToken
            loadedAccessToken = true
            loadedAuthenticationToken = false
            return (old, _accessToken)
        }
        armExpiryTimer(for: new)
        postAccessTokenChange(old: old, new: new)
    }

    private func postAccessTokenChange(old: AccessToken?, new token: AccessToken?, cause: (any Error)? = nil) {
        guard old != token else { return }
        var info: [String: Any] = [:]
        if let cause { info[AccessTokenInvalidationErrorKey] = cause }
        if let token { info[AccessTokenChangeNewKey] = token }
        if let old { info[AccessTokenChangeOldKey] = old }
        let oldActive = old.map { clock.now() < $0.expirationDate } ?? false
        if old?.userID != token?.userID || !oldActive { info[AccessTokenDidChangeUserIDKey] = true }
        post(.AccessTokenDidChange, userInfo: info)
    }

    /// Posts the expiry notification (old == new, `AccessTokenDidExpireKey`) if the current token has expired.
    /// The timer calls this at the expiration date; tests with an injected clock call it directly.
    public func checkAccessTokenExpiry() {
        guard let token = currentAccessToken, clock.now() >= token.expirationDate else { return }
        post(
            .AccessTokenDidChange,
            userInfo: [
                AccessTokenChangeNewKey: token, AccessTokenChangeOldKey: token, AccessTokenDidExpireKey: true,
            ])
    }

    /// The armed expiry timer, if any. Tests await a replaced token's timer to see that it ended without posting.
    var expiryTimer: Task<Void, Never>? { locked { expiryTask } }

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
        // Only the token that is still current owns the timer; a racing newer token armed its own.
        let (owns, previous): (Bool, Task<Void, Never>?) = locked {
            guard _accessToken === token else { return (false, nil) }
            let previous = expiryTask
            expiryTask = task
            return (true, previous)
        }
        if owns { previous?.cancel() } else { task?.cancel() }
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
