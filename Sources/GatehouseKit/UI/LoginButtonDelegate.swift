import Foundation

/// Hears what the login button did (Facebook's `LoginButtonDelegate`).
///
/// Calls arrive with the platform-neutral `LoginButtonModel`; `FBLoginButton` passes its `model`.
public protocol LoginButtonDelegate: AnyObject {
    /// A login started by the button ended: a result (possibly cancelled), or an error.
    func loginButton(_ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?)
    /// The person confirmed logging out and the SDK logged out.
    func loginButtonDidLogOut(_ loginButton: LoginButtonModel)
    /// Asked before a login starts; false stops it. Optional: the default answer is true.
    func loginButtonWillLogin(_ loginButton: LoginButtonModel) -> Bool
}

extension LoginButtonDelegate {
    /// Logins go ahead unless the delegate says otherwise.
    public func loginButtonWillLogin(_ loginButton: LoginButtonModel) -> Bool { true }
}

/// The action sheet Facebook's button shows before logging out.
public struct LogOutConfirmation: Sendable, Equatable {
    /// "Logged in as %@" with the person's name, or "Logged in using Facebook" without one.
    public var title: String
    /// "Log Out".
    public var logOutTitle: String
    /// "Cancel".
    public var cancelTitle: String

    /// The confirmation naming `userName` when it is known and not empty.
    public init(userName: String?) {
        if let userName, !userName.isEmpty {
            title = LoginButtonModel.Strings.loggedInAs.replacingOccurrences(of: "%@", with: userName)
        } else {
            title = LoginButtonModel.Strings.loggedInUsingFacebook
        }
        logOutTitle = LoginButtonModel.Strings.logOutAction
        cancelTitle = LoginButtonModel.Strings.cancelAction
    }
}
