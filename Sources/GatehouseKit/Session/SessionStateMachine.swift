import Foundation

/// The session lifecycle from the seeds ("Understanding sessions") as a pure function of state and
/// event. ``Session`` feeds it events and carries out the actions it returns.
///
/// - App launch: `created` → (`tokenLoaded`) `createdTokenLoaded` → (`openSilently`) `open`; with no
///   token, `openSilently` leaves the session in `created`.
/// - Login: `created` → (`openWithUI`) `createdOpening` → `open` or `closedLoginFailed`.
/// - More permissions: `open`/`openTokenExtended` → `openTokenExtended` when granted, unchanged when refused.
/// - Logout: any state → `closed`; `closeAndClear` also deletes the cached token. Closed states are final.
public struct SessionStateMachine: Sendable, Equatable {
    /// The outcome of one event.
    public struct Transition: Sendable, Equatable {
        public var state: SessionState
        public var actions: [SessionAction]
        public init(_ state: SessionState, _ actions: [SessionAction] = []) {
            self.state = state
            self.actions = actions
        }
    }

    public private(set) var state: SessionState

    public init(state: SessionState = .created) { self.state = state }

    /// Applies `event` and returns the actions to carry out.
    public mutating func handle(_ event: SessionEvent) -> [SessionAction] {
        let transition = Self.transition(from: state, on: event)
        state = transition.state
        return transition.actions
    }

    /// The next state and actions for `event` in `state`. Events that mean nothing in a state (a late
    /// dialog result after `close`, say) leave it unchanged with no actions.
    public static func transition(from state: SessionState, on event: SessionEvent) -> Transition {
        let stay = Transition(state)
        func enter(_ next: SessionState, _ before: [SessionAction] = []) -> Transition {
            Transition(next, before + [.notify(next)])
        }
        if state.isClosed {
            switch event {
            case .openSilently, .openWithUI, .requestPermissions, .refreshRequested:
                return Transition(state, [.reject(.sessionClosed)])
            case .closeAndClear: return Transition(state, [.clearCache])
            default: return stay
            }
        }
        switch event {
        case .tokenLoaded:
            return state == .created ? enter(.createdTokenLoaded) : stay
        case .tokenCleared:
            return state == .createdTokenLoaded ? enter(.created) : stay
        case .openSilently, .openWithUI:
            switch state {
            case .created:
                return event == .openWithUI
                    ? Transition(.createdOpening, [.notify(.createdOpening), .showLoginUI])
                    : Transition(state, [.reject(.noCachedToken)])
            case .createdTokenLoaded: return enter(.open, [.cacheToken])
            case .createdOpening: return Transition(state, [.reject(.loginInProgress)])
            default: return Transition(state, [.reject(.alreadyOpen)])
            }
        case .loginSucceeded:
            return state.isOpen ? stay : enter(.open, [.cacheToken])
        case .loginFailed, .loginCancelled:
            return state == .createdOpening ? enter(.closedLoginFailed) : stay
        case .loginAbandoned:
            return state == .createdOpening ? enter(.closedLoginFailed, [.cancelLogin]) : stay
        case .requestPermissions:
            return state.isOpen ? Transition(state, [.showLoginUI]) : Transition(state, [.reject(.notOpen)])
        case .permissionsGranted:
            return state.isOpen ? enter(.openTokenExtended, [.cacheToken]) : stay
        case .permissionsRefused:
            return stay
        case .refreshRequested:
            return state.isOpen ? Transition(state, [.refreshToken]) : Transition(state, [.reject(.notOpen)])
        case .refreshed:
            return state.isOpen ? enter(.openTokenExtended, [.cacheToken]) : stay
        case .close:
            return enter(.closed, state == .createdOpening ? [.cancelLogin] : [])
        case .closeAndClear:
            return enter(.closed, (state == .createdOpening ? [.cancelLogin] : []) + [.clearCache])
        }
    }
}
