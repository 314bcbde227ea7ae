import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing
import GatehouseProtocol

/// Issue 30, item 2: `loginView:handleError:` reaches the button's delegate, for a failed login and for a
/// session closed from outside the app; `profileID = nil` shows the placeholder.
@Suite struct LoginViewErrorTests {
    /// The seeds' `FBLoginViewDelegate` with `loginView:handleError:` implemented.
    final class ErrorRecorder: LoginButtonModelDelegate, @unchecked Sendable {
        let events = LoginRecorder<String>()
        func loginButton(
            _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
        ) {
            events.record(error == nil ? "complete" : "complete with error")
        }
        func loginButtonDidLogOut(_ loginButton: LoginButtonModel) { events.record("logout") }
        func loginViewShowingLoggedInUser(_ loginView: LoginButtonModel) { events.record("showing in") }
        func loginViewShowingLoggedOutUser(_ loginView: LoginButtonModel) { events.record("showing out") }
        func loginView(_ loginView: LoginButtonModel, handleError error: any Error) {
            if let graph = error as? GraphAPIError {
                events.record("error \(graph.code)/\(graph.subcode ?? 0)")
            } else {
                events.record("error \((error as NSError).domain) \((error as NSError).code)")
            }
        }
    }

    @Test func sessionClosedFromOutsideReachesTheDelegateAsAnError() {
        let (model, _, environment) = LoginButtonModelTests.model()
        environment.setCurrentAccessToken(LoginTest.token())
        let recorder = ErrorRecorder()
        model.delegate = recorder
        // What GraphTokenRules does when the server answers 190/460 for the current token (password changed).
        let refused = GraphAPIError(
            code: 190, subcode: 460, type: "OAuthException", message: "Error validating access token",
            httpStatusCode: 400, body: .null)
        environment.setCurrentAccessToken(nil, cause: refused)
        #expect(recorder.events.values == ["showing in", "error 190/460", "showing out"])
        // A plain log-out elsewhere is no error.
        environment.setCurrentAccessToken(LoginTest.token())
        environment.setCurrentAccessToken(nil)
        #expect(recorder.events.values == ["showing in", "error 190/460", "showing out", "showing in", "showing out"])
    }

    @Test func aFailedLoginByTheButtonIsAlsoHandledAsAnError() async {
        let (model, _, _) = LoginButtonModelTests.model(.failed(LoginError(.passwordChanged)))
        let recorder = ErrorRecorder()
        model.delegate = recorder
        await model.tap()
        #expect(recorder.events.values == ["showing out", "complete with error", "error com.facebook.sdk.login 302"])
    }

    @Test func nilProfileIDShowsThePlaceholder() {
        let environment = LoginTest.environment()
        environment.setCurrentAccessToken(LoginTest.token())
        let model = ProfilePictureViewModel(profileID: "43", environment: environment)
        #expect(model.imageURL != nil)
        model.profileID = nil
        #expect(model.profileID == nil && model.imageURL == nil)
        model.profileID = environment.currentAccessToken!.userID  // seed 003's assignment
        #expect(model.imageURL?.path.contains("/111/picture") == true)
    }
}
