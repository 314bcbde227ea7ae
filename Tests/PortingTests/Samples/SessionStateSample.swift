// The seeds' session state handler (`sessionStateChanged:state:error:`) and its error handling, ported.
import GatehouseKit

/// What the seeds' handler decided to show.
struct SessionStateReport: Equatable {
    var loggedIn: Bool
    var alertTitle: String?
    var alertMessage: String?
}

enum SessionStateSample {
    /// The seeds' handler, with `FBErrorUtility` spelled `ErrorRecovery`.
    static func sessionStateChanged(_ session: Session, state: SessionState, error: (any Error)?) -> SessionStateReport
    {
        if error == nil && state == .open {
            return SessionStateReport(loggedIn: true)
        }
        if state == .closed || state == .closedLoginFailed, error == nil {
            return SessionStateReport(loggedIn: false)
        }
        guard let error else { return SessionStateReport(loggedIn: session.isOpen) }
        if ErrorRecovery.shouldNotifyUser(for: error) {
            return SessionStateReport(
                loggedIn: false, alertTitle: "Something went wrong", alertMessage: ErrorRecovery.userMessage(for: error)
            )
        }
        switch ErrorRecovery.category(for: error) {
        case .userCancelled:
            return SessionStateReport(loggedIn: false)
        case .loginRequired:
            return SessionStateReport(
                loggedIn: false, alertTitle: "Session Error",
                alertMessage: "Your current session is no longer valid. Please log in again.")
        default:
            return SessionStateReport(
                loggedIn: false, alertTitle: "Something went wrong",
                alertMessage: "Please retry. If the problem persists contact us.")
        }
    }
}
