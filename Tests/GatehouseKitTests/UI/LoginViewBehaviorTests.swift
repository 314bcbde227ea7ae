import Foundation
@testable import GatehouseKit
import Testing

/// Records the seeds' `FBLoginViewDelegate` calls.
final class LoginViewRecorder: LoginButtonModelDelegate, @unchecked Sendable {
    let events = LoginRecorder<String>()
    func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {
        events.record(error.map { "error \($0)" } ?? "complete")
    }
    func loginButtonDidLogOut(_ loginButton: LoginButtonModel) { events.record("logout") }
    func loginViewFetchedUserInfo(_ loginView: LoginButtonModel, user: Profile) {
        events.record("user \(user.userID) \(user.name ?? "")")
    }
    func loginViewShowingLoggedInUser(_ loginView: LoginButtonModel) { events.record("showing in") }
    func loginViewShowingLoggedOutUser(_ loginView: LoginButtonModel) { events.record("showing out") }
}

/// Item 5: the seeds' `FBLoginView` behaviour on the button model.
@Suite struct LoginViewBehaviorTests {
    @Test func showingCallsFollowChangesMadeAnywhere() async {
        let (model, _, environment) = LoginButtonModelTests.model()
        let recorder = LoginViewRecorder()
        model.delegate = recorder
        #expect(recorder.events.values == ["showing out"])
        // A login made outside the button (another LoginManager, a Session).
        environment.setCurrentAccessToken(LoginTest.token())
        #expect(recorder.events.values == ["showing out", "showing in"])
        // A refresh of the same login shows nothing new.
        environment.setCurrentAccessToken(LoginTest.token(tokenString: "EAA-refreshed"))
        #expect(recorder.events.values == ["showing out", "showing in"])
        environment.setCurrentAccessToken(nil)
        #expect(recorder.events.values == ["showing out", "showing in", "showing out"])
    }

    @Test func readAndPublishPermissionsAreKeptApart() async throws {
        let (model, provider, _) = LoginButtonModelTests.model()
        let recorder = LoginViewRecorder()
        model.delegate = recorder
        model.permissions = ["email"]
        model.readPermissions = ["public_profile", "user_friends"]
        await model.tap()
        #expect(provider.configurations.last?.requestedPermissions == [.publicProfile, .userFriends])
        model.publishPermissions = ["publish_actions"]
        await model.tap()
        #expect(provider.configurations.last?.requestedPermissions == [.publishActions])
        // A publish permission among the read ones is refused before any dialog, as the seeds' view refused it.
        model.publishPermissions = []
        model.readPermissions = ["email", "publish_actions"]
        await model.tap()
        #expect(provider.configurations.count == 2)
        #expect(recorder.events.values.last?.hasPrefix("error CoreError 2") == true)
        model.readPermissions = []
        model.publishPermissions = ["email"]
        await model.tap()
        #expect(provider.configurations.count == 2)
    }
}

extension GraphSerialTests {
    /// `loginViewFetchedUserInfo:user:` with the real server's profile.
    @Suite struct LoginViewLiveTests {
        @Test func fetchesThePublicProfileAfterLogin() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            let environment = LiveLogin.environment(server)
            let presenter = DialogBrowserPresenter(server: server, user: server.users[0])
            let manager = LoginManager(defaultAudience: .friends, presenter: presenter, environment: environment)
            let model = LoginButtonModel(loginProvider: manager, environment: environment)
            let recorder = LoginViewRecorder()
            model.delegate = recorder
            model.readPermissions = ["public_profile", "email"]
            await model.tap()
            let token = try #require(environment.currentAccessToken)
            #expect(
                recorder.events.values == [
                    "showing out", "showing in", "complete", "user \(token.userID) \(server.users[0].name)",
                ])
            #expect(environment.currentProfile?.userID == token.userID)
            #expect(environment.currentProfile?.email == server.users[0].email)
            #expect(model.userName == server.users[0].name)
        }
    }
}
