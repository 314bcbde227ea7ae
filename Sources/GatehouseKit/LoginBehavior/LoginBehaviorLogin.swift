import Foundation

/// Runs a ``LoginBehavior``: tries its dialogs in order with the seeds' fallback rule. A ``Session``
/// opened with `open(behavior:completion:)` logs in through one.
public struct LoginBehaviorLogin: SessionLoginProviding {
    /// What one dialog did during a login, for logs and tests.
    public enum Step: Sendable, Equatable {
        /// Not available: skipped without being shown.
        case skipped(LoginDialogKind)
        /// Shown; its outcome follows.
        case shown(LoginDialogKind)
    }

    public let behavior: LoginBehavior
    /// The dialog for each kind; a kind without one is skipped like an unavailable one.
    public let presenters: [LoginDialogKind: any LoginBehaviorPresenting]
    private let onStep: (@Sendable (Step) -> Void)?

    /// - Parameters:
    ///   - presenters: one per kind; later ones replace earlier ones of the same kind.
    ///   - onStep: hears each dialog skipped or shown, in order.
    public init(
        behavior: LoginBehavior, presenters: [any LoginBehaviorPresenting], onStep: (@Sendable (Step) -> Void)? = nil
    ) {
        self.behavior = behavior
        var byKind: [LoginDialogKind: any LoginBehaviorPresenting] = [:]
        for presenter in presenters { byKind[presenter.kind] = presenter }
        self.presenters = byKind
        self.onStep = onStep
    }

    /// Tries each dialog of the behaviour in order. Success stamps the token's ``AccessToken/loginType``
    /// with the dialog that produced it. A cancel or a real failure ends the login there; only "not
    /// available" moves on. With nothing available the login fails with CoreError 9 (`dialogUnavailable`).
    public func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async
        -> SessionLoginOutcome
    {
        var lastUnavailable: (any Error)?
        for kind in behavior.dialogs {
            guard let presenter = presenters[kind], await presenter.isAvailable() else {
                onStep?(.skipped(kind))
                continue
            }
            onStep?(.shown(kind))
            switch await presenter.logIn(permissions: permissions, authType: authType, defaultAudience: defaultAudience)
            {
            case .success(let token):
                return .success(token.loginType == .none ? token.with(loginType: kind.loginType) : token)
            case .cancelled:
                return .cancelled
            case .failed(let error) where Self.meansUnavailable(error):
                lastUnavailable = error
            case .failed(let error):
                return .failed(error)
            }
        }
        let tried = behavior.dialogs.map(\.rawValue).joined(separator: ", ")
        return .failed(
            CoreError(
                .dialogUnavailable,
                message: "no login dialog is available here (tried \(tried))"
                    + (lastUnavailable.map { "; last: \($0)" } ?? "")))
    }

    /// CoreError 9 or 12: the dialog could not be shown, so the next one may be.
    static func meansUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? CoreError else { return false }
        return error.code == .dialogUnavailable || error.code == .browserUnavailable
    }
}
