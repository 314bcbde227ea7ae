import Foundation

/// The seeds' `FBLoginView` behaviour on the button model: read and publish permissions kept apart, the
/// person's profile fetched after a login, and "showing logged in / out" calls whoever changes the token.
extension LoginButtonModel {
    /// Why the read or publish list holds the other kind, if it does.
    func permissionKindError() -> SessionError? {
        if readPermissions.contains(where: PermissionKind.isPublish) { return .publishPermissionsInReadRequest }
        if publishPermissions.contains(where: { !PermissionKind.isPublish($0) }) {
            return .readPermissionsInPublishRequest
        }
        return nil
    }

    /// Loads the person's public profile with the new token (`me`, the fields the token allows), makes
    /// it `Profile.current`, fills ``userName``, and tells the delegate (`loginViewFetchedUserInfo:user:`).
    /// A failure is not reported: the login itself succeeded, and the seeds' view stayed quiet too.
    func fetchUserInfo(token: AccessToken) async {
        let environment = self.environment
        guard let profile = try? await ProfileLoader(environment: environment).fetch(token: token) else { return }
        if environment.currentAccessToken?.tokenString == token.tokenString {
            Profile.setCurrent(profile, in: environment)
        }
        userName = profile.name
        delegate?.loginViewFetchedUserInfo(self, user: profile)
    }

    /// Follows `.AccessTokenDidChange`, so a log-in or log-out made elsewhere reaches the delegate too.
    /// A token the server refused (its cause in ``AccessTokenInvalidationErrorKey``) is a session closed
    /// from outside: the delegate hears the error first, then "showing logged out", as from `FBLoginView`.
    func observeTokenChanges() {
        tokenObserver = environment.observe(.AccessTokenDidChange) { [weak self] note in
            guard let self else { return }
            if let cause = note.userInfo?[AccessTokenInvalidationErrorKey] as? any Error {
                delegate?.loginView(self, handleError: cause)
            }
            showCurrentState()
        }
    }

    /// Tells the delegate "logged in" or "logged out" when that differs from what it was last told.
    func showCurrentState() {
        let loggedIn = isLoggedIn
        guard let delegate = markShown(loggedIn: loggedIn) else { return }
        if loggedIn {
            delegate.loginViewShowingLoggedInUser(self)
        } else {
            delegate.loginViewShowingLoggedOutUser(self)
        }
    }
}
