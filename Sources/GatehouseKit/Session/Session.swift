import Foundation

/// A person's login session with the seeds' lifecycle (Facebook's `FBSession`, in today's terms):
/// it opens from a cached token or through the login dialog, gains permissions, is refreshed, and
/// closes. ``SessionStateMachine`` decides every transition; this class carries out the actions,
/// talks to the dialog through ``SessionLoginProviding`` and to the server through
/// ``SessionTokenRefreshing``, and keeps `AccessToken.current` (and so the token cache) in step.
///
/// State changes go to the handler (``setStateChangeHandler(_:)``, or the completion of
/// `open(allowLoginUI:completion:)`) and to every ``states`` stream.
public final class Session: @unchecked Sendable {
    /// Called for every state change, with the error that caused a failure state.
    public typealias StateHandler = @Sendable (Session, SessionState, (any Error)?) -> Void
    /// Called once when a permission request or refresh ends.
    public typealias RequestCompletion = @Sendable (Session, (any Error)?) -> Void
    typealias OpenResolver = @Sendable (SessionState, (any Error)?) -> Void

    public let environment: GatehouseKitEnvironment
    public let loginProvider: (any SessionLoginProviding)?
    public let tokenRefresher: (any SessionTokenRefreshing)?
    /// The read permissions the session was created with.
    public let requestedPermissions: [String]

    // Recursive so the small locked helpers can nest; never held while handlers run or notifications post.
    let lock = NSRecursiveLock()
    private var machine = SessionStateMachine()
    private var token: AccessToken?
    private var handler: StateHandler?
    private var continuations: [UUID: AsyncStream<SessionState>.Continuation] = [:]
    private var openResolvers: [OpenResolver] = []
    private var effects: [@Sendable () -> Void] = []
    private var draining = false
    var loginTask: Task<Void, Never>?
    /// Dialogs and refreshes under way; token changes they cause are theirs to report.
    var operationsInFlight = 0
    /// Permissions the person declined in a refused request; the token (and so its declined list) stays as it
    /// was, but asking for them again must use `auth_type=rerequest`.
    var refusedPermissions: Set<Permission> = []
    private var observer: (any NSObjectProtocol)?
    /// Permissions set through ``permissions`` before the session opened; they replace `requestedPermissions`.
    var pendingPermissions: [String]?
    /// The audience the first login asks for (`openActiveSession(withPublishPermissions:…)`).
    var openAudience: DefaultAudience = .friends
    /// Set by `openActiveSession(withPublishPermissions:…)`, whose first login asks for publish permissions.
    var allowsPublishPermissionsOnOpen = false

    /// Creates a session and loads a usable cached token: one that has not expired and grants every
    /// requested permission. With one the state is `createdTokenLoaded`, else `created`.
    ///
    /// - Parameters:
    ///   - loginProvider: defaults to ``Session/defaultLoginProvider``.
    ///   - tokenRefresher: defaults to ``Session/defaultTokenRefresher``.
    public init(
        permissions: [String] = ["public_profile"], environment: GatehouseKitEnvironment = .current,
        loginProvider: (any SessionLoginProviding)? = nil, tokenRefresher: (any SessionTokenRefreshing)? = nil
    ) {
        self.requestedPermissions = permissions
        self.environment = environment
        self.loginProvider = loginProvider ?? Session.defaultLoginProvider
        self.tokenRefresher = tokenRefresher ?? Session.defaultTokenRefresher
        if let cached = environment.currentAccessToken,
            Self.isUsable(cached, for: permissions, now: environment.clock.now())
        {
            token = cached
            _ = machine.handle(.tokenLoaded)
        }
        observer = environment.observe(.AccessTokenDidChange) {
            [weak self] note in self?.accessTokenDidChange(note.userInfo)
        }
    }

    deinit {
        if let observer { environment.notificationCenter.removeObserver(observer) }
        for continuation in continuations.values { continuation.finish() }
    }

    /// Whether a cached token can open a session asking for `permissions` without the dialog.
    static func isUsable(_ token: AccessToken, for permissions: [String], now: Date) -> Bool {
        now < token.expirationDate && permissions.allSatisfy { token.permissions.contains(Permission($0)) }
    }

    public var state: SessionState { lock.withLock { machine.state } }
    public var isOpen: Bool { state.isOpen }
    /// The session's token (Facebook's `accessTokenData`).
    public var accessToken: AccessToken? { lock.withLock { token } }
    /// The token's granted permissions, or the requested ones while there is no token.
    ///
    /// Settable before the session opens (state `created`), as the seeds' sessions allowed: the first login
    /// then asks for these. Setting it later changes nothing; ask with `requestNewReadPermissions` instead.
    public var permissions: [String] {
        get {
            lock.withLock {
                token.map { $0.permissions.map(\.name).sorted() } ?? pendingPermissions ?? requestedPermissions
            }
        }
        set { lock.withLock { if machine.state == .created { pendingPermissions = newValue } } }
    }
    /// The permissions the person declined.
    public var declinedPermissions: [String] {
        lock.withLock { token.map { $0.declinedPermissions.map(\.name).sorted() } ?? [] }
    }
    public var appID: String? { environment.settings.appID }

    /// Replaces the handler that hears every state change. Attach it again after a relaunch in the
    /// middle of a login, before the callback URL is handled, and it hears the session open.
    public func setStateChangeHandler(_ handler: StateHandler?) {
        lock.withLock { self.handler = handler }
    }

    /// The state changes from now on. The stream finishes when the session closes.
    public var states: AsyncStream<SessionState> {
        let (stream, continuation) = AsyncStream<SessionState>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        lock.withLock {
            if machine.state.isClosed { continuation.finish() } else { continuations[id] = continuation }
        }
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { _ = self?.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Feeds `event` to the state machine and queues its side effects (cache writes, notifications),
    /// which run in order without the session's lock held, so a handler or another session's
    /// observer can call back in without deadlocking. Returns every action.
    ///
    /// - Parameters:
    ///   - refusal: checked under the lock first; a non-nil answer rejects the event unseen.
    ///   - follow: runs under the lock right after the transition, before any side effect (to wait
    ///     for the open, or start the dialog, atomically with the transition).
    ///   - writesBack: false when the event *reports* a change the environment already holds; the session
    ///     then adopts the token without writing it back. Writing back there would make two sessions on one
    ///     environment answer each other's writes forever.
    @discardableResult
    func apply(
        _ event: SessionEvent, token newToken: AccessToken? = nil, error: (any Error)? = nil, writesBack: Bool = true,
        unless refusal: () -> SessionError? = { nil }, then follow: ([SessionAction]) -> Void = { _ in }
    ) -> [SessionAction] {
        let actions: [SessionAction] = lock.withLock {
            if let refused = refusal() { return [.reject(refused)] }
            let actions = machine.handle(event)
            for action in actions {
                switch action {
                case .cacheToken:
                    if let newToken { token = newToken }
                    let cached = token
                    if writesBack { effects.append { [self] in environment.setCurrentAccessToken(cached) } }
                case .clearCache:
                    token = nil
                    if writesBack {
                        effects.append { [self] in
                            environment.setCurrentAccessToken(nil)
                            environment.setCurrentAuthenticationToken(nil)
                        }
                    }
                case .cancelLogin:
                    loginTask?.cancel()
                    loginTask = nil
                case .notify(let state):
                    effects.append { [self] in deliver(state, error: error) }
                case .showLoginUI, .refreshToken, .reject:
                    break
                }
            }
            follow(actions)
            return actions
        }
        runEffects()
        return actions
    }

    /// Waits for the open attempt under way; called with `open`, or a closed state and its error.
    func awaitOpen(_ resolver: @escaping OpenResolver) {
        lock.withLock { openResolvers.append(resolver) }
    }

    /// Runs queued side effects in order. One thread at a time drains; a call made while another
    /// drain is running (a handler calling back, another thread) leaves its effects to that drain.
    private func runEffects() {
        let drains: Bool = lock.withLock {
            if draining { return false }
            draining = true
            return true
        }
        guard drains else { return }
        while let effect: @Sendable () -> Void = lock.withLock({
            if effects.isEmpty { draining = false; return nil }
            return effects.removeFirst()
        }) {
            effect()
        }
    }

    private func deliver(_ state: SessionState, error: (any Error)?) {
        let settles = state == .open || state.isClosed
        let (handler, streams, resolvers): (StateHandler?, [AsyncStream<SessionState>.Continuation], [OpenResolver]) =
            lock.withLock {
                let resolvers = settles ? openResolvers : []
                if settles { openResolvers = [] }
                let streams = Array(continuations.values)
                if state.isClosed { continuations = [:] }
                return (self.handler, streams, resolvers)
            }
        // Facebook's session calls its handler on the main thread; streams and `open()` awaiters are Swift
        // concurrency's and resume wherever they are awaited.
        if let handler { MainThreadDelivery.deliver { handler(self, state, error) } }
        for stream in streams {
            stream.yield(state)
            if state.isClosed { stream.finish() }
        }
        for resolve in resolvers { resolve(state, state == .open ? nil : error ?? SessionError.sessionClosed) }
    }

    /// Follows `AccessToken.current` changes made elsewhere: a `LoginManager` finishing a login after a
    /// relaunch opens a waiting session, a refresh extends an open one, a logout or another person's
    /// login closes it. Changes made by this session's own dialog or refresh are reported by those.
    /// A close caused by a Graph error reaches the handler with that error, whose ``ErrorRecovery``
    /// category is `.loginRequired` and whose ``ErrorRecovery/userMessage(for:)`` tells the person why.
    private func accessTokenDidChange(_ info: [AnyHashable: Any]?) {
        guard info?[AccessTokenDidExpireKey] == nil else { return }
        let new = info?[AccessTokenChangeNewKey] as? AccessToken
        // A Graph error that killed the token (app removed, password changed) is the close's reason.
        let cause = info?[AccessTokenInvalidationErrorKey] as? any Error
        let event: SessionEvent? = lock.withLock {
            guard operationsInFlight == 0, new != token, !machine.state.isClosed else { return nil }
            switch (new, machine.state.isOpen) {
            case (let new?, true): return new.userID == token?.userID ? .refreshed : .close
            case (_?, false): return .loginSucceeded
            case (nil, true):
                token = nil
                return .close
            case (nil, false):
                token = nil
                return .tokenCleared
            }
        }
        if let event {
            apply(event, token: event == .close ? nil : new, error: event == .close ? cause : nil, writesBack: false)
        }
    }
}

extension [SessionAction] {
    /// The reason the machine refused the event, if it did.
    var rejection: SessionError? {
        for case .reject(let error) in self { return error }
        return nil
    }
}
