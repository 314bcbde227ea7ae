import Foundation

extension LoginButtonModel {
    /// What a press of Facebook's UIKit button does (`FBLoginButton` calls only this): when logged in, first loads
    /// the person's name so the log-out confirmation can say "Logged in as …" (a failed load leaves "Logged in using
    /// Facebook"), then ``tap()``. Returns when done.
    public func press() async {
        if isLoggedIn { try? await loadUserName() }
        await tap()
    }
}
