import Foundation

extension Session {
    private static let activeSessions = EnvironmentScoped<Session>()
    private static let defaults = SessionDefaults()

    /// The session the app works with (Facebook's `FBSession.activeSession`), one per environment.
    /// Reading it before one is set creates a session from the token cache (`created` or
    /// `createdTokenLoaded`). Setting a different session closes the previous one (keeping its cache).
    public static var activeSession: Session {
        get {
            let environment = GatehouseKitEnvironment.current
            return activeSessions.value(for: environment) { Session(environment: environment) }
        }
        set { setActiveSession(newValue) }
    }

    /// Facebook's `setActiveSession:`.
    public static func setActiveSession(_ session: Session) {
        let previous = activeSessions.set(session, for: session.environment)
        if let previous, previous !== session { previous.close() }
    }

    /// Facebook's `openActiveSessionWithReadPermissions:allowLoginUI:completionHandler:`: creates a
    /// session asking for `permissions`, and if it can open (a cached token, or `allowLoginUI`) makes
    /// it the active session and opens it with `completionHandler` as its handler.
    ///
    /// - Returns: whether the session is open on return, as it is at once with a cached token.
    @discardableResult
    public static func openActiveSession(
        withReadPermissions permissions: [String], allowLoginUI: Bool, completionHandler: StateHandler?
    ) -> Bool {
        let session = Session(permissions: permissions)
        guard allowLoginUI || session.state == .createdTokenLoaded else { return false }
        setActiveSession(session)
        session.open(allowLoginUI: allowLoginUI, completion: completionHandler)
        return session.isOpen
    }

    /// The async form: returns the open active session, or throws (``SessionError/noCachedToken``
    /// when `allowLoginUI` is false and no usable token is cached).
    public static func openActiveSession(withReadPermissions permissions: [String], allowLoginUI: Bool) async throws
        -> Session
    {
        let session = Session(permissions: permissions)
        guard allowLoginUI || session.state == .createdTokenLoaded else { throw SessionError.noCachedToken }
        setActiveSession(session)
        try await session.open(allowLoginUI: allowLoginUI)
        return session
    }

    /// The dialog new sessions use when none is passed to `init`. The app sets it once at launch
    /// (for example to its `LoginManager`).
    public static var defaultLoginProvider: (any SessionLoginProviding)? {
        get { defaults.lock.withLock { defaults.loginProvider } }
        set { defaults.lock.withLock { defaults.loginProvider = newValue } }
    }

    /// The refresher new sessions use when none is passed to `init`.
    public static var defaultTokenRefresher: (any SessionTokenRefreshing)? {
        get { defaults.lock.withLock { defaults.tokenRefresher } }
        set { defaults.lock.withLock { defaults.tokenRefresher = newValue } }
    }
}

private final class SessionDefaults: @unchecked Sendable {
    let lock = NSLock()
    var loginProvider: (any SessionLoginProviding)?
    var tokenRefresher: (any SessionTokenRefreshing)?
}
