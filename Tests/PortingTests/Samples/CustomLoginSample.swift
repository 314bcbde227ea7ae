// The Facebook SDK's custom-login sample (a button that calls LoginManager), ported by changing the import.
import GatehouseKit
#if canImport(UIKit)
import UIKit
#endif

/// What the sample shows after a login; the UIKit controller draws it, tests read it.
enum CustomLoginOutcome: Equatable {
    case loggedIn(userID: String, granted: [String], declined: [String])
    case cancelled
    case failed(domain: String, code: Int)
}

/// The sample's logic without a view: Facebook's sample puts this in the view controller.
final class CustomLoginFlow: @unchecked Sendable {
    let loginManager: LoginManager
    private(set) var outcome: CustomLoginOutcome?

    init(loginManager: LoginManager = LoginManager()) { self.loginManager = loginManager }

    /// The sample's `loginButtonClicked`, word for word apart from the view controller argument.
    func loginButtonClicked(viewController: AnyObject?, done: @escaping @Sendable (CustomLoginOutcome) -> Void) {
        loginManager.logIn(permissions: [.publicProfile, .email], viewController: viewController) { result in
            let outcome: CustomLoginOutcome
            switch result {
            case .cancelled:
                outcome = .cancelled
            case .failed(let error):
                let nsError = error as NSError
                outcome = .failed(domain: nsError.domain, code: nsError.code)
            case .success(let grantedPermissions, let declinedPermissions, let accessToken):
                outcome = .loggedIn(
                    userID: accessToken?.userID ?? "",
                    granted: grantedPermissions.map(\.name).sorted(), declined: declinedPermissions.map(\.name).sorted()
                )
            }
            done(outcome)
        }
    }

    func logOut() { loginManager.logOut() }
}

#if canImport(UIKit)
/// The sample's view controller.
final class CustomLoginViewController: UIViewController {
    private let flow = CustomLoginFlow()
    private let label = UILabel()

    override func viewDidLoad() {
        super.viewDidLoad()
        let button = UIButton(type: .system)
        button.setTitle("Custom Login", for: .normal)
        button.addTarget(self, action: #selector(loginButtonClicked), for: .touchUpInside)
        view.addSubview(button)
        view.addSubview(label)
    }

    @objc private func loginButtonClicked() {
        flow.loginButtonClicked(viewController: self) { outcome in
            Task { @MainActor [weak self] in self?.label.text = "\(outcome)" }
        }
    }
}
#endif
