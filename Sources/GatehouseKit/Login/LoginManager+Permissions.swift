import Foundation

/// Facebook's Swift entry point with typed permissions, so
/// `loginManager.logIn(permissions: [.publicProfile, .email], viewController: self) { result in … }`
/// compiles unchanged.
extension LoginManager {
    /// Logs in asking for `permissions` and reports a ``LoginResult`` (Facebook's
    /// `logIn(permissions:viewController:completion:)`). It uses the start-state rule of the `[String]`
    /// entry: a call while another login is starting is dropped without a callback.
    ///
    /// - Parameters:
    ///   - viewController: carried for source compatibility; presenters choose where the dialog shows.
    ///   - completion: nil runs the login without telling anyone, as Facebook allows.
    public func logIn(
        permissions: [Permission] = [], viewController: AnyObject? = nil, completion: LoginResultBlock? = nil
    ) {
        let names = permissions.map(\.name)
        logIn(permissions: names, from: viewController) { result, error in
            completion?(LoginResult(result: result, error: error))
        }
    }
}
