import Foundation
import GatehouseKit

/// Records delegate calls as short strings.
package final class RecordingButtonDelegate: LoginButtonModelDelegate, @unchecked Sendable {
    package init() {}
    package let events = LoginRecorder<String>()
    package var allowsLogin = true
    package var lastResult: LoginManagerLoginResult?

    package func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {
        lastResult = result
        if let error {
            events.record("error \(error)")
        } else {
            events.record("complete cancelled=\(result?.isCancelled == true)")
        }
    }
    package func loginButtonDidLogOut(_ loginButton: LoginButtonModel) { events.record("logout") }
    package func loginButtonWillLogin(_ loginButton: LoginButtonModel) -> Bool {
        events.record("will")
        return allowsLogin
    }
}

/// Records the seeds' `FBLoginViewDelegate` calls.
package final class LoginViewRecorder: LoginButtonModelDelegate, @unchecked Sendable {
    package init() {}
    package let events = LoginRecorder<String>()
    package func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {
        events.record(error.map { "error \($0)" } ?? "complete")
    }
    package func loginButtonDidLogOut(_ loginButton: LoginButtonModel) { events.record("logout") }
    package func loginViewFetchedUserInfo(_ loginView: LoginButtonModel, user: Profile) {
        events.record("user \(user.userID) \(user.name ?? "")")
    }
    package func loginViewShowingLoggedInUser(_ loginView: LoginButtonModel) { events.record("showing in") }
    package func loginViewShowingLoggedOutUser(_ loginView: LoginButtonModel) { events.record("showing out") }
}
