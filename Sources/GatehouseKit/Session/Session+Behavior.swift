import Foundation

extension Session {
    private static let presenterStore = PresenterStore()

    /// The dialogs ``open(behavior:completion:)`` chooses from; defaults to
    /// ``LoginBehaviorLogin/platformPresenters(environment:)``. Replace it to add a web-view dialog or,
    /// in tests, fakes.
    public static var loginBehaviorPresenters: [any LoginBehaviorPresenting] {
        get { presenterStore.lock.withLock { presenterStore.presenters } ?? LoginBehaviorLogin.platformPresenters() }
        set { presenterStore.lock.withLock { presenterStore.presenters = newValue } }
    }

    /// Opens the session with the dialogs `behavior` allows, in its order (the seeds'
    /// `openWithBehavior:completionHandler:`): a dialog not available here falls through to the next; a
    /// cancel ends the login (`closedLoginFailed`, with an error whose category is `.userCancelled`).
    ///
    /// A cached token opens the session without any dialog, as `open(allowLoginUI:completion:)` does.
    /// `completion` becomes the state-change handler.
    ///
    /// - Parameter presenters: nil means ``loginBehaviorPresenters``.
    public func open(
        behavior: LoginBehavior, presenters: [any LoginBehaviorPresenting]? = nil, completion: StateHandler?
    ) {
        if let completion { setStateChangeHandler(completion) }
        let provider = LoginBehaviorLogin(behavior: behavior, presenters: presenters ?? Self.loginBehaviorPresenters)
        if let error = beginOpen(allowLoginUI: true, resolver: nil, provider: provider) {
            completion?(self, state, error)
        }
    }

    /// Facebook's `openActiveSessionWithPublishPermissions:defaultAudience:allowLoginUI:completionHandler:`:
    /// as the read form, but the first login asks for publish permissions with `defaultAudience`
    /// preselected. A read permission in the list is refused with ``SessionError/readPermissionsInPublishRequest``.
    ///
    /// - Returns: whether the session is open on return, as it is at once with a cached token.
    @discardableResult
    public static func openActiveSession(
        withPublishPermissions permissions: [String], defaultAudience: DefaultAudience, allowLoginUI: Bool,
        completionHandler: StateHandler?
    ) -> Bool {
        let session = Session(permissions: permissions)
        if permissions.contains(where: { !PermissionKind.isPublish($0) }) {
            completionHandler?(session, session.state, SessionError.readPermissionsInPublishRequest)
            return false
        }
        session.lock.withLock {
            session.openAudience = defaultAudience
            session.allowsPublishPermissionsOnOpen = true
        }
        guard allowLoginUI || session.state == .createdTokenLoaded else { return false }
        setActiveSession(session)
        session.open(allowLoginUI: allowLoginUI, completion: completionHandler)
        return session.isOpen
    }

    /// A session with its own settings and token cache (the seeds'
    /// `initWithAppID:permissions:urlSchemeSuffix:tokenCacheStrategy:`): for an app that logs several
    /// people in, or keeps one person's token away from `AccessToken.current`.
    ///
    /// The session gets its own ``GatehouseKitEnvironment`` (``environment``), copying the current
    /// settings with `appID` and `urlSchemeSuffix` replaced, and sharing the clock, notification centre
    /// and URL session. Make Graph calls for this session inside
    /// `GatehouseKitEnvironment.$taskOverride.withValue(session.environment) { … }`.
    ///
    /// - Parameters:
    ///   - appID: nil keeps the current app id.
    ///   - tokenCache: nil keeps tokens in memory only (the seeds' `nullCacheInstance`).
    public convenience init(
        appID: String?, permissions: [String], urlSchemeSuffix: String?, tokenCache: (any TokenCaching)?,
        loginProvider: (any SessionLoginProviding)? = nil, tokenRefresher: (any SessionTokenRefreshing)? = nil
    ) {
        let current = GatehouseKitEnvironment.current
        let settings = current.settings.copy()
        if let appID { settings.appID = appID }
        if let urlSchemeSuffix { settings.appURLSchemeSuffix = urlSchemeSuffix }
        let environment = GatehouseKitEnvironment(
            settings: settings, clock: current.clock, tokenCache: tokenCache ?? InMemoryTokenCache(),
            profileCache: nil, urlSession: current.urlSession)
        // The default dialog must log in on this session's environment, not the app-wide one.
        self.init(
            permissions: permissions, environment: environment,
            loginProvider: loginProvider
                ?? LoginManager(defaultAudience: .friends, presenter: nil, environment: environment),
            tokenRefresher: tokenRefresher)
    }
}

private final class PresenterStore: @unchecked Sendable {
    let lock = NSLock()
    var presenters: [any LoginBehaviorPresenting]?
}

extension Settings {
    /// An independent copy of every value.
    public func copy() -> Settings {
        let copy = Settings()
        copy.appID = appID
        copy.clientToken = clientToken
        copy.displayName = displayName
        copy.appURLSchemeSuffix = appURLSchemeSuffix
        copy.graphAPIVersion = graphAPIVersion
        copy.serverURL = serverURL
        copy.dialogURL = dialogURL
        copy.isGraphErrorRecoveryEnabled = isGraphErrorRecoveryEnabled
        copy.loggingBehaviors = loggingBehaviors
        copy.isAdvertiserTrackingEnabled = isAdvertiserTrackingEnabled
        copy.isAutoLogAppEventsEnabled = isAutoLogAppEventsEnabled
        copy.isAdvertiserIDCollectionEnabled = isAdvertiserIDCollectionEnabled
        return copy
    }
}
