// Seeds 000/001: the FBErrorUtility samples — FBLoginView's loginView:handleError: and the app delegate's
// sessionStateChanged:state:error:, which reads the 3.x userInfo key "com.facebook.sdk:ParsedJSONResponseKey".
// Each edit Swift required is listed in docs/PORTING.md ("Seed samples, edit by edit"); UIAlertView's
// `show` became `showMessage(_:withTitle:)`, which records the alert.
import Foundation
import GatehouseKit

/// An alert the sample would show.
struct SampleAlert: Equatable, Sendable {
    var title: String?
    var message: String?
}

final class ErrorUtilitySample: LoginButtonModelDelegate, @unchecked Sendable {
    private(set) var alerts: [SampleAlert] = []
    private(set) var log: [String] = []
    private(set) var loggedOut = 0

    func showMessage(_ text: String?, withTitle title: String?) {
        alerts.append(SampleAlert(title: title, message: text))
    }
    func userLoggedIn() {}
    func userLoggedOut() { loggedOut += 1 }
    func NSLog(_ text: String) { log.append(text) }

    // LoginButtonDelegate's two required methods (FBLoginViewDelegate's were all optional).
    func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {}
    func loginButtonDidLogOut(_ loginButton: LoginButtonModel) {}

    // Handle possible errors that can occur during login
    func loginView(_ loginView: LoginButtonModel, handleError error: any Error) {
        var alertMessage: String?, alertTitle: String?

        // If the user should perform an action outside of you app to recover,
        // the SDK will provide a message for the user, you just need to surface it.
        // This conveniently handles cases like Facebook password change or unverified Facebook accounts.
        if FBErrorUtility.shouldNotifyUserForError(error) {
            alertTitle = "Facebook error"
            alertMessage = FBErrorUtility.userMessageForError(error)

            // This code will handle session closures that happen outside of the app
            // You can take a look at our error handling guide to know more about it
            // https://developers.facebook.com/docs/ios/errors
        } else if FBErrorUtility.errorCategoryForError(error) == .authenticationReopenSession {
            alertTitle = "Session Error"
            alertMessage = "Your current session is no longer valid. Please log in again."

            // If the user has cancelled a login, we will do nothing.
            // You can also choose to show the user a message if cancelling login will result in
            // the user not being able to complete a task they had initiated in your app
            // (like accessing FB-stored information or posting to Facebook)
        } else if FBErrorUtility.errorCategoryForError(error) == .userCancelled {
            NSLog("user cancelled login")

            // For simplicity, this sample handles other errors with a generic message
            // You can checkout our error handling guide for more detailed information
            // https://developers.facebook.com/docs/ios/errors
        } else {
            alertTitle = "Something went wrong"
            alertMessage = "Please try again later."
            NSLog("Unexpected error:\(error)")
        }

        if alertMessage != nil {
            showMessage(alertMessage, withTitle: alertTitle)
        }
    }

    // This method will handle ALL the session state changes in the app
    func sessionStateChanged(_ session: Session, state: SessionState, error: (any Error)?) {
        // If the session was opened successfully
        if error == nil && state == .open {
            NSLog("Session opened")
            // Show the user the logged-in UI
            self.userLoggedIn()
            return
        }
        if state == .closed || state == .closedLoginFailed {
            // If the session is closed
            NSLog("Session closed")
            // Show the user the logged-out UI
            self.userLoggedOut()
        }

        // Handle errors
        if let error {
            NSLog("Error")
            var alertText: String?
            var alertTitle: String?
            // If the error requires people using an app to make an action outside of the app in order to recover
            if FBErrorUtility.shouldNotifyUserForError(error) == true {
                alertTitle = "Something went wrong"
                alertText = FBErrorUtility.userMessageForError(error)
                self.showMessage(alertText, withTitle: alertTitle)
            } else {

                // If the user cancelled login, do nothing
                if FBErrorUtility.errorCategoryForError(error) == .userCancelled {
                    NSLog("User cancelled login")

                    // Handle session closures that happen outside of the app
                } else if FBErrorUtility.errorCategoryForError(error) == .authenticationReopenSession {
                    alertTitle = "Session Error"
                    alertText = "Your current session is no longer valid. Please log in again."
                    self.showMessage(alertText, withTitle: alertTitle)

                    // Here we will handle all other errors with a generic error message.
                    // We recommend you check our Handling Errors guide for more information
                    // https://developers.facebook.com/docs/ios/errors/
                } else {
                    //Get more error information from the error
                    let errorInformation =
                        (((error as NSError).userInfo["com.facebook.sdk:ParsedJSONResponseKey"] as? [String: Any])?[
                            "body"] as? [String: Any])?["error"] as? [String: Any]

                    // Show the user an error message
                    alertTitle = "Something went wrong"
                    alertText = String(
                        format: "Please retry. \n\n If the problem persists contact us and mention this error code: %@",
                        errorInformation?["message"] as? String ?? "")
                    self.showMessage(alertText, withTitle: alertTitle)
                }
            }
            // Clear this token
            Session.activeSession.closeAndClearTokenInformation()
            // Show the user the logged-out UI
            self.userLoggedOut()
        }
    }
}
