import Foundation

/// Hears what the platform-neutral login button did: Facebook's `LoginButtonDelegate` over
/// ``LoginButtonModel``, plus the seeds' `FBLoginViewDelegate` calls.
///
/// On UIKit, `LoginButtonDelegate` is Facebook's protocol taking an `FBLoginButton`; elsewhere it is
/// this protocol under that name, so code written against the model ports too.
public protocol LoginButtonModelDelegate: AnyObject {
    /// A login started by the button ended: a result (possibly cancelled), or an error.
    func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?)
    /// The person confirmed logging out and the SDK logged out.
    func loginButtonDidLogOut(_ loginButton: LoginButtonModel)
    /// Asked before a login starts; false stops it. Optional: the default answer is true.
    func loginButtonWillLogin(_ loginButton: LoginButtonModel) -> Bool
    /// The seeds' `loginViewFetchedUserInfo:user:`: the person's public profile, fetched after a login.
    func loginViewFetchedUserInfo(_ loginView: LoginButtonModel, user: Profile)
    /// The seeds' `loginViewShowingLoggedInUser:`: the button now shows "logged in", whoever changed the token.
    func loginViewShowingLoggedInUser(_ loginView: LoginButtonModel)
    /// The seeds' `loginViewShowingLoggedOutUser:`.
    func loginViewShowingLoggedOutUser(_ loginView: LoginButtonModel)
    /// The seeds' `loginView:handleError:`: a login by the button failed, or the session was closed from
    /// outside the app (the server refused the token: app removed, password changed, logged out elsewhere).
    func loginView(_ loginView: LoginButtonModel, handleError error: any Error)
}

extension LoginButtonModelDelegate {
    /// Logins go ahead unless the delegate says otherwise.
    public func loginButtonWillLogin(_ loginButton: LoginButtonModel) -> Bool { true }
    public func loginViewFetchedUserInfo(_ loginView: LoginButtonModel, user: Profile) {}
    public func loginViewShowingLoggedInUser(_ loginView: LoginButtonModel) {}
    public func loginViewShowingLoggedOutUser(_ loginView: LoginButtonModel) {}
    public func loginView(_ loginView: LoginButtonModel, handleError error: any Error) {}
}

#if !(canImport(UIKit) && !os(watchOS))
/// Without UIKit there is no `FBLoginButton`: the delegate is the model's.
public typealias LoginButtonDelegate = LoginButtonModelDelegate
#endif

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
