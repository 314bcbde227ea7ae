// Seeds 000/001, "Revoking permissions": DELETE /me/permissions/publish_actions and the seed's check
// `result == true`. The server answers a bare `true` at v2.0 and earlier (the seeds' versions) and
// `{"success":true}` from v2.1 on, so at today's versions the seed's own check reports a failure.
// Each edit Swift required is listed in docs/PORTING.md ("Seed samples, edit by edit").
import Foundation
import GatehouseKit

enum RevokePermissionSample {
    static func revokePublishActions(showAlert: @escaping @Sendable (SampleAlert) -> Void) {
        GraphRequest(
            graphPath: "/me/permissions/publish_actions",
            parameters: [:],
            httpMethod: .delete
        )
        .start { connection, result, error in
            var alertText: String?
            var alertTitle: String?
            if error == nil && result as? Bool == true {
                // Revoking the permission worked
                alertTitle = "Permission successfully revoked"
                alertText = "This app will no longer post to Facebook on your behalf."

            } else {
                // There was an error, handle it
                // See https://developers.facebook.com/docs/ios/errors/
            }

            showAlert(SampleAlert(title: alertTitle, message: alertText))
        }
    }
}

// Seed 002, "Requesting additional Facebook permissions": the 2.x `Facebook` class is absent, so
// `[self.facebook authorize:permissions]` becomes a LoginManager login (docs/PORTING.md lists the rewrite).
enum ExtendedPermissionsSample {
    static func authorize(
        loginManager: LoginManager, completion: @escaping @Sendable (LoginManagerLoginResult?, (any Error)?) -> Void
    ) {
        // Set up the permissions to use for this App
        let permissions = [
            "user_likes",
            "user_birthday",
            "user_interests",
            "read_stream",
        ]

        // Check to ensure that we have a valid session object
        if !AccessToken.isCurrentAccessTokenActive {
            loginManager.logIn(permissions: permissions, from: nil, handler: completion)
        }
    }
}

// Seed 002, "Integrating with Facebook social channels": sendNotificationRequest, the requests dialog with
// `notification_text`. `[self.facebook dialog:@"apprequests" andParams:params andDelegate:…]` becomes a
// `WebDialog` with the same name, parameters and delegate; the test hands it a presenter (no UI on Linux).
final class RequestsDialogSample: WebDialogDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _completed: [WebDialogResults] = []
    private var _failures: [String] = []
    var completed: [WebDialogResults] { lock.withLock { _completed } }
    /// What the dialog failed with, so a failing test says why instead of only that nothing completed.
    var failures: [String] { lock.withLock { _failures } }

    // Send a notification request to a group of friends
    func sendNotificationRequest(presenter: any LoginDialogPresenting, environment: GatehouseKitEnvironment) {
        let params = [
            "message": "invites you to check out some great stuff.",
            "notification_text": "Check this out",
        ]

        // Display the Facebook Request Notifications DialogBox
        WebDialog(
            name: "apprequests",
            parameters: params, delegate: self, presenter: presenter, environment: environment
        ).show()
    }

    // FBDialogDelegate
    func webDialog(_ dialog: WebDialog, didCompleteWithResults results: WebDialogResults) {
        NSLog("dialog completed successfully")
        lock.withLock { _completed.append(results) }
    }

    func webDialog(_ dialog: WebDialog, didFailWithError error: any Error) {
        lock.withLock { _failures.append(String(describing: error)) }
    }
    func webDialogDidCancel(_ dialog: WebDialog) {}
}
