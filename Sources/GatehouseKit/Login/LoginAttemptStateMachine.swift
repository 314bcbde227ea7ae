import Foundation

/// `LoginManager`'s `idle → start → performingLogin` rule as a pure value.
///
/// Facebook's rule: a `logIn` while another is in `.start` is silently dropped (no callback); while one
/// is in `.performingLogin` it implicitly cancels that one (whose handler gets a cancelled result).
/// Only the `[String]`, ObjC-configuration and reauthorize entry points check it. Facebook's Swift
/// `logIn(viewController:configuration:completion:)` skips the check and overwrites the pending
/// handler, so the earlier caller never hears back; here that entry cancels the earlier login instead,
/// because an async caller waiting on it would otherwise hang forever.
public struct LoginAttemptStateMachine: Sendable, Equatable {
    /// Where the manager is in Facebook's login lifecycle.
    public enum State: Sendable, Equatable {
        case idle
        /// Accepted, preparing the dialog.
        case start
        /// The dialog is showing.
        case performingLogin
    }

    /// What to do with a new `logIn` call.
    public enum StartAction: Sendable, Equatable {
        /// Nothing in flight: run it as `attempt`.
        case begin(attempt: Int)
        /// A login is starting: ignore this call, without calling its handler.
        case drop
        /// Report `previous` as cancelled, then run this one as `attempt`.
        case cancelPreviousAndBegin(previous: Int, attempt: Int)
    }

    /// The current state; `.idle` when no login is in flight.
    public private(set) var state: State = .idle
    /// The attempt whose result will be delivered.
    public private(set) var currentAttempt: Int?
    private var lastAttempt = 0

    /// An idle machine.
    public init() {}

    /// A `logIn` call arrived. `checksState` is false for the entry point that skips Facebook's check.
    public mutating func requestLogIn(checksState: Bool) -> StartAction {
        switch (state, currentAttempt) {
        case (.start, _?) where checksState:
            return .drop
        case (.start, let previous?), (.performingLogin, let previous?):
            let attempt = begin()
            return .cancelPreviousAndBegin(previous: previous, attempt: attempt)
        default:
            return .begin(attempt: begin())
        }
    }

    /// The dialog of `attempt` is now showing; false when that attempt was superseded.
    @discardableResult
    public mutating func dialogPresented(attempt: Int) -> Bool {
        guard currentAttempt == attempt else { return false }
        state = .performingLogin
        return true
    }

    /// `attempt` produced its result; true when it is still current and its result must be delivered,
    /// false when it was superseded (its handler has already heard "cancelled").
    public mutating func finish(attempt: Int) -> Bool {
        guard currentAttempt == attempt else { return false }
        state = .idle
        currentAttempt = nil
        return true
    }

    private mutating func begin() -> Int {
        lastAttempt += 1
        currentAttempt = lastAttempt
        state = .start
        return lastAttempt
    }
}
