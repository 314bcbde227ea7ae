import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// A login manager stand-in: answers every login with a scripted result and records what it was asked.
final class FakeButtonLoginProvider: LoginProviding, @unchecked Sendable {
    private let lock = NSLock()
    private var _defaultAudience: DefaultAudience = .friends
    private var _configurations: [LoginConfiguration] = []
    private var _logOuts = 0
    let answer: LoginResult
    let environment: GatehouseKitEnvironment

    init(_ answer: LoginResult, environment: GatehouseKitEnvironment) {
        self.answer = answer
        self.environment = environment
    }

    var defaultAudience: DefaultAudience {
        get { lock.withLock { _defaultAudience } }
        set { lock.withLock { _defaultAudience = newValue } }
    }
    var configurations: [LoginConfiguration] { lock.withLock { _configurations } }
    var logOuts: Int { lock.withLock { _logOuts } }

    func logIn(viewController: AnyObject?, configuration: LoginConfiguration?, completion: @escaping LoginResultBlock) {
        if let configuration { lock.withLock { _configurations.append(configuration) } }
        if case .success(_, _, let token?) = answer { environment.setCurrentAccessToken(token) }
        completion(answer)
    }

    func logOut() {
        lock.withLock { _logOuts += 1 }
        environment.setCurrentAccessToken(nil)
        environment.setCurrentAuthenticationToken(nil)
    }
}

/// A delegate that leaves out the optional `loginButtonWillLogin`.
final class MinimalButtonDelegate: LoginButtonModelDelegate, @unchecked Sendable {
    let events = LoginRecorder<String>()
    func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {
        events.record("complete")
    }
    func loginButtonDidLogOut(_ loginButton: LoginButtonModel) { events.record("logout") }
}

@Suite struct LoginButtonModelTests {
    static func model(_ answer: LoginResult = .cancelled) -> (
        LoginButtonModel, FakeButtonLoginProvider, GatehouseKitEnvironment
    ) {
        let environment = LoginTest.environment()
        let provider = FakeButtonLoginProvider(answer, environment: environment)
        return (LoginButtonModel(loginProvider: provider, environment: environment), provider, environment)
    }

    @Test func titlesFollowTheLoginState() {
        let (model, _, environment) = Self.model()
        #expect(!model.isLoggedIn)
        #expect(model.title == "Continue with Facebook")
        #expect(model.shortTitle == "Log in")
        environment.setCurrentAccessToken(LoginTest.token())
        #expect(model.isLoggedIn)
        #expect(model.title == "Log out")
        #expect(model.shortTitle == "Log out")
        environment.setCurrentAccessToken(nil)
        environment.setCurrentAuthenticationToken(AuthenticationToken(tokenString: "h.p.s", nonce: "n"))
        #expect(model.title == "Log out")
    }

    @Test func confirmationNamesThePersonWhenKnown() {
        let (model, _, environment) = Self.model()
        environment.setCurrentAccessToken(LoginTest.token(userID: "111"))
        #expect(model.logOutConfirmation() == LogOutConfirmation(userName: nil))
        #expect(model.logOutConfirmation().title == "Logged in using Facebook")
        #expect(model.logOutConfirmation().logOutTitle == "Log Out")
        #expect(model.logOutConfirmation().cancelTitle == "Cancel")
        environment.replaceCurrentProfile(
            Profile(
                userID: "999", firstName: nil, middleName: nil, lastName: nil, name: "Someone Else", linkURL: nil,
                refreshDate: LoginTest.now))
        #expect(model.logOutConfirmation().title == "Logged in using Facebook")
        environment.replaceCurrentProfile(
            Profile(
                userID: "111", firstName: "Ann", middleName: nil, lastName: "Lee", name: "Ann Lee", linkURL: nil,
                refreshDate: LoginTest.now))
        #expect(model.logOutConfirmation().title == "Logged in as Ann Lee")
        model.userName = "Loaded Name"
        #expect(model.logOutConfirmation().title == "Logged in as Loaded Name")
    }

    @Test func tapWhenLoggedInConfirmsThenLogsOut() async {
        let (model, provider, environment) = Self.model()
        let delegate = RecordingButtonDelegate()
        model.delegate = delegate
        environment.setCurrentAccessToken(LoginTest.token())
        let asked = LoginRecorder<String>()
        model.confirmLogOut = { confirmation in
            asked.record(confirmation.title)
            return false
        }
        await model.tap()
        #expect(asked.values == ["Logged in using Facebook"])
        #expect(provider.logOuts == 0)
        #expect(delegate.events.values.isEmpty)
        #expect(model.isLoggedIn)

        model.confirmLogOut = { _ in true }
        await model.tap()
        #expect(provider.logOuts == 1)
        #expect(delegate.events.values == ["logout"])
        #expect(model.title == "Continue with Facebook")
        #expect(provider.configurations.isEmpty)
    }

    @Test func tapWhenLoggedOutAsksTheDelegateThenLogsIn() async throws {
        let token = LoginTest.token(permissions: ["public_profile", "email"])
        let (model, provider, environment) = Self.model(
            .success(granted: [.email], declined: [.userFriends], token: token))
        let delegate = RecordingButtonDelegate()
        model.delegate = delegate
        model.permissions = ["email", "user_friends"]
        model.nonce = "button-nonce"
        model.authType = nil
        model.messengerPageId = "page-1"
        model.defaultAudience = .onlyMe
        environment.setCurrentAuthenticationToken(nil)
        await model.tap()
        #expect(delegate.events.values == ["will", "complete cancelled=false"])
        let configuration = try #require(provider.configurations.first)
        #expect(configuration.requestedPermissions == [.email, .userFriends])
        #expect(configuration.nonce == "button-nonce")
        #expect(configuration.authType == nil)
        #expect(configuration.messengerPageId == "page-1")
        #expect(configuration.tracking == .enabled)
        #expect(configuration.codeVerifier == model.codeVerifier)
        #expect(provider.defaultAudience == .onlyMe)
        let result = try #require(delegate.lastResult)
        #expect(result.token == token)
        #expect(result.grantedPermissions == ["email"])
        #expect(result.declinedPermissions == ["user_friends"])
        #expect(model.title == "Log out")
    }

    @Test func delegateCanStopTheLogin() async {
        let (model, provider, _) = Self.model()
        let delegate = RecordingButtonDelegate()
        delegate.allowsLogin = false
        model.delegate = delegate
        await model.tap()
        #expect(delegate.events.values == ["will"])
        #expect(provider.configurations.isEmpty)
    }

    @Test func willLoginDefaultsToTrue() async {
        let (model, provider, _) = Self.model()
        let delegate = MinimalButtonDelegate()
        model.delegate = delegate
        #expect(delegate.loginButtonWillLogin(model))
        await model.tap()
        #expect(provider.configurations.count == 1)
        #expect(delegate.events.values == ["complete"])
    }

    @Test func cancelledAndFailedLoginsReachTheDelegate() async {
        let (cancelModel, _, _) = Self.model(.cancelled)
        let cancelDelegate = RecordingButtonDelegate()
        cancelModel.delegate = cancelDelegate
        await cancelModel.tap()
        #expect(cancelDelegate.events.values == ["will", "complete cancelled=true"])

        let (failModel, _, _) = Self.model(.failed(LoginError(.userMismatch)))
        let failDelegate = RecordingButtonDelegate()
        failModel.delegate = failDelegate
        await failModel.tap()
        #expect(failDelegate.events.values == ["will", "error LoginError 304 (userMismatch)"])
    }

    @Test func invalidSettingsAreReportedWithoutALogin() async {
        let (model, provider, _) = Self.model()
        let delegate = RecordingButtonDelegate()
        model.delegate = delegate
        model.loginTracking = .limited
        model.permissions = ["user_posts"]
        #expect(model.makeLoginConfiguration() == nil)
        await model.tap()
        #expect(provider.configurations.isEmpty)
        #expect(delegate.events.values.last?.hasPrefix("error CoreError 2") == true)
    }
}
