import Foundation

/// What the login button and login recovery need from a login manager (Facebook's `LoginProviding`);
/// `LoginManager` conforms and tests substitute fakes.
public protocol LoginProviding: AnyObject, Sendable {
    var defaultAudience: DefaultAudience { get set }
    func logIn(viewController: AnyObject?, configuration: LoginConfiguration?, completion: @escaping LoginResultBlock)
    func logOut()
}

/// Facebook's recovery for Graph errors in the `login` category (codes 102 and 190): log in again asking
/// for the permissions the current token had (`LoginRecoveryAttempter`).
///
/// A Graph error-recovery processor calls `attemptRecovery(permissions:)` and retries the request once
/// when it returns true; wrap it in whatever recovery protocol the Graph layer defines.
public struct LoginRecoveryAttempter: Sendable {
    /// Runs the recovery login.
    public let loginProvider: any LoginProviding
    private let fixedEnvironment: GatehouseKitEnvironment?

    /// - Parameters:
    ///   - loginProvider: nil means a `LoginManager` on `environment`.
    ///   - environment: nil means `GatehouseKitEnvironment.current` when recovery runs.
    public init(loginProvider: (any LoginProviding)? = nil, environment: GatehouseKitEnvironment? = nil) {
        self.loginProvider =
            loginProvider ?? LoginManager(defaultAudience: .friends, presenter: nil, environment: environment)
        self.fixedEnvironment = environment
    }

    /// Logs in again for `permissions` (`auth_type=rerequest`). True only when that login succeeded with
    /// none of them declined; an empty list asks for nothing and returns false without a dialog.
    public func attemptRecovery(permissions: [String]) async -> Bool {
        guard !permissions.isEmpty, let configuration = LoginConfiguration(permissions: permissions, tracking: .enabled)
        else {
            return false
        }
        let provider = loginProvider
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<LoginResult, Never>) in
            provider.logIn(viewController: nil, configuration: configuration) { continuation.resume(returning: $0) }
        }
        switch outcome {
        case .success(_, let declined, _): return declined.isEmpty
        case .cancelled, .failed: return false
        }
    }

    /// `attemptRecovery(permissions:)` with the current token's granted permissions, as Facebook does.
    public func attemptRecovery() async -> Bool {
        let environment = fixedEnvironment ?? .current
        return await attemptRecovery(
            permissions: environment.currentAccessToken?.permissions.map(\.name).sorted() ?? [])
    }
}
