import Foundation
import GatehouseProtocol

/// Everything Facebook's `FBLoginButton` decides, without a UI toolkit: its title, what a tap does, the
/// log-out confirmation and the delegate calls. `FBLoginButton` (UIKit) draws it; other UIs can too.
public final class LoginButtonModel: @unchecked Sendable {
    /// Facebook's button strings.
    public enum Strings {
        /// The logged-out title.
        public static let continueWithFacebook = "Continue with Facebook"
        /// The short logged-out title.
        public static let logIn = "Log in"
        /// The logged-in title.
        public static let logOut = "Log out"
        /// The confirmation title with a name (`%@`).
        public static let loggedInAs = "Logged in as %@"
        /// The confirmation title without a name.
        public static let loggedInUsingFacebook = "Logged in using Facebook"
        /// The confirming action.
        public static let logOutAction = "Log Out"
        /// The dismissing action.
        public static let cancelAction = "Cancel"
    }

    private let lock = NSLock()
    private weak var _delegate: (any LoginButtonModelDelegate)?
    private var _readPermissions: [String] = []
    private var _publishPermissions: [String] = []
    /// What the delegate was last told: nil before the first call.
    var shownLoggedIn: Bool?
    var tokenObserver: (any NSObjectProtocol)?
    private var _permissions: [String] = []
    private var _loginTracking: LoginTracking = .enabled
    private var _nonce: String?
    private var _messengerPageId: String?
    private var _authType: LoginAuthType? = .rerequest
    private var _appSwitch: AppSwitch = .enabled
    private var _codeVerifier = CodeVerifier()
    private var _userName: String?
    private var _confirmLogOut: @Sendable (LogOutConfirmation) async -> Bool = { _ in true }
    private let fixedEnvironment: GatehouseKitEnvironment?

    /// Runs the logins and the log-out.
    public let loginProvider: any LoginProviding

    /// - Parameters:
    ///   - loginProvider: nil means a `LoginManager` on `environment`.
    ///   - environment: nil means `GatehouseKitEnvironment.current`.
    public init(loginProvider: (any LoginProviding)? = nil, environment: GatehouseKitEnvironment? = nil) {
        self.loginProvider =
            loginProvider ?? LoginManager(defaultAudience: .friends, presenter: nil, environment: environment)
        fixedEnvironment = environment
        observeTokenChanges()
    }

    deinit {
        if let tokenObserver { environment.notificationCenter.removeObserver(tokenObserver) }
    }

    private func locked<T>(_ body: () -> T) -> T { lock.withLock(body) }
    var environment: GatehouseKitEnvironment { fixedEnvironment ?? .current }

    /// Hears what the button did; held weakly.
    /// Setting it tells the new delegate what the button shows now, as `FBLoginView` did.
    public var delegate: (any LoginButtonModelDelegate)? {
        get { locked { _delegate } }
        set {
            locked {
                _delegate = newValue; shownLoggedIn = nil
            }
            showCurrentState()
        }
    }
    /// The seeds' `readPermissions`: asked for when ``publishPermissions`` is empty. A publish permission
    /// here fails the login with CoreError 2, because the seeds' SDK asked for the two kinds apart.
    public var readPermissions: [String] {
        get { locked { _readPermissions } }
        set { locked { _readPermissions = newValue } }
    }
    /// The seeds' `publishPermissions`: when set, the button's login asks for these (with ``defaultAudience``).
    /// A read permission here fails the login with CoreError 2.
    public var publishPermissions: [String] {
        get { locked { _publishPermissions } }
        set { locked { _publishPermissions = newValue } }
    }
    /// Permission names to ask for.
    public var permissions: [String] {
        get { locked { _permissions } }
        set { locked { _permissions = newValue } }
    }
    /// Classic or Limited Login.
    public var loginTracking: LoginTracking {
        get { locked { _loginTracking } }
        set { locked { _loginTracking = newValue } }
    }
    /// nil means a fresh UUID for each login.
    public var nonce: String? {
        get { locked { _nonce } }
        set { locked { _nonce = newValue } }
    }
    /// Sent as `messenger_page_id`.
    public var messengerPageId: String? {
        get { locked { _messengerPageId } }
        set { locked { _messengerPageId = newValue } }
    }
    /// `auth_type`; `.rerequest` by default.
    public var authType: LoginAuthType? {
        get { locked { _authType } }
        set { locked { _authType = newValue } }
    }
    /// Carried for compatibility.
    public var appSwitch: AppSwitch {
        get { locked { _appSwitch } }
        set { locked { _appSwitch = newValue } }
    }
    /// The PKCE verifier the button's logins use (Facebook keeps one per button).
    public var codeVerifier: CodeVerifier {
        get { locked { _codeVerifier } }
        set { locked { _codeVerifier = newValue } }
    }
    /// The login provider's default audience.
    public var defaultAudience: DefaultAudience {
        get { loginProvider.defaultAudience }
        set { loginProvider.defaultAudience = newValue }
    }
    /// The name shown in the log-out confirmation; `loadUserName()` fills it from the Graph API.
    public var userName: String? {
        get { locked { _userName } }
        set { locked { _userName = newValue } }
    }
    /// Shows the log-out confirmation and answers whether the person chose "Log Out". The UI sets this;
    /// without a UI the default confirms.
    public var confirmLogOut: @Sendable (LogOutConfirmation) async -> Bool {
        get { locked { _confirmLogOut } }
        set { locked { _confirmLogOut = newValue } }
    }

    /// A current access token or authentication token exists (the button is "selected").
    public var isLoggedIn: Bool {
        environment.currentAccessToken != nil || environment.currentAuthenticationToken != nil
    }

    /// "Log out" when logged in, else "Continue with Facebook".
    public var title: String { isLoggedIn ? Strings.logOut : Strings.continueWithFacebook }
    /// The title for a narrow button: "Log out" or "Log in".
    public var shortTitle: String { isLoggedIn ? Strings.logOut : Strings.logIn }

    /// The confirmation for the current person: the loaded name, else the current profile's name when it
    /// belongs to the token's user, else "Logged in using Facebook".
    public func logOutConfirmation() -> LogOutConfirmation {
        let environment = self.environment
        var name = userName
        if name == nil, let profile = environment.currentProfile,
            profile.userID == environment.currentAccessToken?.userID
        {
            name = profile.name
        }
        return LogOutConfirmation(userName: name)
    }

    /// The permissions a login from the button asks for: ``publishPermissions`` if any, else
    /// ``readPermissions`` if any, else ``permissions``. Call under the lock.
    private var permissionsToAsk: [String] {
        if !_publishPermissions.isEmpty { return _publishPermissions }
        if !_readPermissions.isEmpty { return _readPermissions }
        return _permissions
    }

    /// Records that the button shows `loggedIn`; returns the delegate to tell when that changed.
    func markShown(loggedIn: Bool) -> (any LoginButtonModelDelegate)? {
        locked {
            defer { shownLoggedIn = loggedIn }
            return shownLoggedIn != loggedIn ? _delegate : nil
        }
    }

    /// The configuration a login from the button uses; nil when the settings are invalid.
    public func makeLoginConfiguration() -> LoginConfiguration? {
        let (permissions, tracking, nonce, pageID, authType, appSwitch, verifier) = locked {
            (permissionsToAsk, _loginTracking, _nonce, _messengerPageId, _authType, _appSwitch, _codeVerifier)
        }
        return LoginConfiguration(
            permissions: permissions, tracking: tracking, nonce: nonce ?? UUID().uuidString, messengerPageId: pageID,
            authType: authType, appSwitch: appSwitch, codeVerifier: verifier)
    }

    /// What a tap does. Logged in: confirm, then `logOut()` and `loginButtonDidLogOut`. Logged out: ask
    /// `loginButtonWillLogin`, log in, and report `loginButton(_:didCompleteWith:error:)` (and a failure to
    /// `loginView(_:handleError:)` too, as `FBLoginView` reported it). Returns when done.
    public func tap() async {
        if isLoggedIn {
            guard await confirmLogOut(logOutConfirmation()) else { return }
            loginProvider.logOut()
            userName = nil
            delegate?.loginButtonDidLogOut(self)
            return
        }
        if let delegate, !delegate.loginButtonWillLogin(self) { return }
        if let mixed = permissionKindError() {
            delegate?.loginButton(
                self, didCompleteWith: nil, error: CoreError(.invalidArgument, message: mixed.description))
            return
        }
        guard let configuration = makeLoginConfiguration() else {
            delegate?.loginButton(
                self, didCompleteWith: nil,
                error: CoreError(
                    .invalidArgument, message: "the button's permissions, nonce or auth type are invalid"))
            return
        }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<LoginResult, Never>) in
            loginProvider.logIn(viewController: nil, configuration: configuration) {
                continuation.resume(returning: $0)
            }
        }
        let (result, error) = buttonResult(outcome)
        delegate?.loginButton(self, didCompleteWith: result, error: error)
        if let error { delegate?.loginView(self, handleError: error) }
        if let token = result?.token, !(result?.isCancelled ?? true) { await fetchUserInfo(token: token) }
    }

    /// Loads the current person's name for the confirmation (`me?fields=id,name`, as Facebook's button does).
    public func loadUserName() async throws {
        let environment = self.environment
        guard let token = environment.currentAccessToken else { return }
        let reply = try await GraphTransport(environment: environment).send(
            method: "GET", path: "me", parameters: ["fields": "id,name"], tokenString: token.tokenString)
        guard let json = reply.json else {
            throw CoreError(.graphAPI, message: "me answered HTTP \(reply.statusCode) without JSON")
        }
        if let error = GraphAPIError(body: json, httpStatusCode: reply.statusCode) { throw error }
        if json["id"]?.stringValue == token.userID { userName = json["name"]?.stringValue }
    }

    /// The button reports Swift results the ObjC way, as Facebook's does.
    private func buttonResult(_ outcome: LoginResult) -> (LoginManagerLoginResult?, (any Error)?) {
        switch outcome {
        case .success(let granted, let declined, let token):
            return (
                LoginManagerLoginResult(
                    token: token, authenticationToken: environment.currentAuthenticationToken, isCancelled: false,
                    grantedPermissions: Set(granted.map(\.name)), declinedPermissions: Set(declined.map(\.name))), nil
            )
        case .cancelled:
            return (.cancelled, nil)
        case .failed(let error):
            return (nil, error)
        }
    }
}
