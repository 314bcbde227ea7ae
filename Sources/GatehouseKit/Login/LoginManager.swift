import Foundation

/// Logs people in and out (Facebook's `LoginManager`).
///
/// Completion handlers run on the main thread on Apple platforms, as Facebook's do; on Linux they run
/// on the task that finished the login. The dialog is shown by a `LoginDialogPresenting`: by default the app's
/// `fb{appID}{suffix}://` URL scheme; command-line programs pass `LoopbackLoginPresenter`.
public final class LoginManager: @unchecked Sendable {
    struct PendingLogin {
        let deliver: @Sendable (LoginCompletion) -> Void
        var task: Task<Void, Never>?
    }

    let lock = NSLock()
    var machine = LoginAttemptStateMachine()
    var pending: [Int: PendingLogin] = [:]
    /// Facebook keeps the last callback's `user_token_nonce` in the keychain and sends it with the next dialog.
    var userTokenNonce: String?
    private var _defaultAudience: DefaultAudience
    private let fixedEnvironment: GatehouseKitEnvironment?
    let graphClient: (any LoginGraphClient)?

    /// Shows the dialog and brings back its callback.
    public let presenter: any LoginDialogPresenting

    /// The audience for posts when publish permissions are granted; `.friends` by default.
    public var defaultAudience: DefaultAudience {
        get { lock.withLock { _defaultAudience } }
        set { lock.withLock { _defaultAudience = newValue } }
    }

    /// The environment in use: the one given at init, else `GatehouseKitEnvironment.current`.
    public var environment: GatehouseKitEnvironment { fixedEnvironment ?? .current }

    /// Facebook's initialiser: the URL-scheme presenter and `GatehouseKitEnvironment.current`.
    public convenience init(defaultAudience: DefaultAudience = .friends) {
        self.init(defaultAudience: defaultAudience, presenter: nil, environment: nil)
    }

    /// - Parameters:
    ///   - presenter: nil means a `URLSchemeLoginPresenter` on the same environment.
    ///   - environment: nil means `GatehouseKitEnvironment.current` at the time of each call.
    public convenience init(
        defaultAudience: DefaultAudience = .friends, presenter: (any LoginDialogPresenting)?,
        environment: GatehouseKitEnvironment? = nil
    ) {
        self.init(defaultAudience: defaultAudience, presenter: presenter, environment: environment, graphClient: nil)
    }

    init(
        defaultAudience: DefaultAudience, presenter: (any LoginDialogPresenting)?,
        environment: GatehouseKitEnvironment?,
        graphClient: (any LoginGraphClient)?
    ) {
        _defaultAudience = defaultAudience
        fixedEnvironment = environment
        self.presenter = presenter ?? URLSchemeLoginPresenter(environment: environment)
        self.graphClient = graphClient
    }

    // MARK: Entry points

    /// Logs in asking for `permissions` (ObjC `logInWithPermissions:fromViewController:handler:`).
    ///
    /// Dropped without a callback while another login is starting; cancels a login whose dialog is showing.
    /// Invalid permission names fail with CoreError 2.
    public func logIn(
        permissions: [String], from viewController: AnyObject? = nil, handler: LoginManagerLoginResultBlock?
    ) {
        guard let configuration = LoginConfiguration(permissions: permissions, tracking: .enabled) else {
            handler?(nil, CoreError(.invalidArgument, message: "invalid permission names: \(permissions)"))
            return
        }
        start(configuration, audience: defaultAudience, checksState: true) { completion in
            MainThreadDelivery.deliver { handler?(completion.result, completion.error) }
        }
    }

    /// Logs in with a configuration (Swift). A nil configuration fails with CoreError 2.
    public func logIn(
        viewController: AnyObject? = nil, configuration: LoginConfiguration?, completion: @escaping LoginResultBlock
    ) {
        guard let configuration else {
            completion(.failed(CoreError(.invalidArgument, message: "the login configuration is nil")))
            return
        }
        start(configuration, audience: defaultAudience, checksState: false) { outcome in
            MainThreadDelivery.deliver { completion(LoginResult(result: outcome.result, error: outcome.error)) }
        }
    }

    /// The ObjC entry `logInFromViewController:configuration:completion:`, which applies the start-state rule.
    public func logIn(
        from viewController: AnyObject?, configuration: LoginConfiguration?,
        completion: @escaping LoginManagerLoginResultBlock
    ) {
        guard let configuration else {
            completion(nil, CoreError(.invalidArgument, message: "the login configuration is nil"))
            return
        }
        start(configuration, audience: defaultAudience, checksState: true) { outcome in
            MainThreadDelivery.deliver { completion(outcome.result, outcome.error) }
        }
    }

    /// Renews data access for the current token's person (`auth_type=reauthorize`, no new permissions).
    ///
    /// Fails with LoginError 310 without a current access token.
    public func reauthorizeDataAccess(from viewController: AnyObject?, handler: @escaping LoginManagerLoginResultBlock)
    {
        guard environment.currentAccessToken != nil else {
            handler(nil, LoginError(.missingAccessToken))
            return
        }
        guard
            let configuration = LoginConfiguration(
                permissions: [], tracking: .enabled, nonce: UUID().uuidString, messengerPageId: nil,
                authType: .reauthorize,
                appSwitch: .enabled, codeVerifier: CodeVerifier())
        else { return handler(nil, LoginError(.unknown)) }
        start(configuration, audience: defaultAudience, checksState: true) { handler($0.result, $0.error) }
    }

    /// Clears the current access token, authentication token and profile (client side only), posting
    /// `.AccessTokenDidChange` and `.ProfileDidChange` as Facebook's `logOut()` does (it sets `Profile.current = nil`).
    public func logOut() {
        let environment = self.environment
        lock.withLock { userTokenNonce = nil }
        environment.setCurrentAccessToken(nil)
        environment.setCurrentAuthenticationToken(nil)
        Profile.setCurrent(nil, in: environment)
    }

    // MARK: Async

    /// `logIn(permissions:from:handler:)` awaited. Throws the login's error, or `LoginError(.unknown)` when
    /// the call was dropped because another login was starting. Cancelling the task cancels the login.
    public func logIn(permissions: [String]) async throws -> LoginManagerLoginResult {
        guard let configuration = LoginConfiguration(permissions: permissions, tracking: .enabled) else {
            throw CoreError(.invalidArgument, message: "invalid permission names: \(permissions)")
        }
        let completion = try await awaitLogin(configuration, audience: defaultAudience, checksState: true)
        if let error = completion.error { throw error }
        guard let result = completion.result else { throw LoginError(.unknown) }
        return result
    }

    /// `logIn(configuration:completion:)` awaited. Cancelling the task cancels the login.
    public func logIn(configuration: LoginConfiguration) async -> LoginResult {
        do {
            let completion = try await awaitLogin(configuration, audience: defaultAudience, checksState: false)
            return LoginResult(result: completion.result, error: completion.error)
        } catch {
            return .failed(error)
        }
    }
}

extension LoginManager: LoginProviding {}
