// The seeds' login-button view controller (FBLoginView / FBLoginButton with a delegate), ported by
// changing the import. The UIKit part compiles on Apple platforms only; on Linux the same delegate
// logic runs against the button's model.
import GatehouseKit
#if canImport(UIKit)
import UIKit

final class LoginButtonViewController: UIViewController, LoginButtonDelegate {
    private let loginButton = FBLoginButton()
    private(set) var status = "logged out"

    override func viewDidLoad() {
        super.viewDidLoad()
        loginButton.permissions = ["public_profile", "email"]
        loginButton.delegate = self
        view.addSubview(loginButton)
    }

    func loginButton(_ loginButton: FBLoginButton, didCompleteWith result: LoginManagerLoginResult?, error: Error?) {
        if let error { status = "error: \(error.localizedDescription)"; return }
        status = result?.isCancelled == true ? "cancelled" : "logged in as \(AccessToken.current?.userID ?? "?")"
    }

    func loginButtonDidLogOut(_ loginButton: FBLoginButton) { status = "logged out" }
}
#endif

/// The same delegate on the platform-neutral button model (the protocol Linux has).
final class LoginButtonStatus: LoginButtonModelDelegate, @unchecked Sendable {
    private(set) var status = "logged out"
    private(set) var fetchedName: String?
    private(set) var shown: [String] = []

    func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {
        if let error { status = "error: \((error as NSError).domain)"; return }
        status = result?.isCancelled == true ? "cancelled" : "logged in as \(result?.token?.userID ?? "?")"
    }

    func loginButtonDidLogOut(_ loginButton: LoginButtonModel) { status = "logged out" }
}
