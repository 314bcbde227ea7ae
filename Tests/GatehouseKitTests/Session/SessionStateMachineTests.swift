import Foundation
import Testing
import GatehouseKit

@Suite("SessionStateMachine")
struct SessionStateMachineTests {
    typealias Row = (from: SessionState, on: SessionEvent, to: SessionState, actions: [SessionAction])

    /// Every state × every event, written out.
    static let table: [Row] = {
        var rows: [Row] = [
            (.created, .tokenLoaded, .createdTokenLoaded, [.notify(.createdTokenLoaded)]),
            (.created, .tokenCleared, .created, []),
            (.created, .openSilently, .created, [.reject(.noCachedToken)]),
            (.created, .openWithUI, .createdOpening, [.notify(.createdOpening), .showLoginUI]),
            (.created, .loginSucceeded, .open, [.cacheToken, .notify(.open)]),
            (.created, .loginFailed, .created, []),
            (.created, .loginCancelled, .created, []),
            (.created, .loginAbandoned, .created, []),
            (.created, .requestPermissions, .created, [.reject(.notOpen)]),
            (.created, .permissionsGranted, .created, []),
            (.created, .permissionsRefused, .created, []),
            (.created, .refreshRequested, .created, [.reject(.notOpen)]),
            (.created, .refreshed, .created, []),
            (.created, .close, .closed, [.notify(.closed)]),
            (.created, .closeAndClear, .closed, [.clearCache, .notify(.closed)]),

            (.createdTokenLoaded, .tokenLoaded, .createdTokenLoaded, []),
            (.createdTokenLoaded, .tokenCleared, .created, [.notify(.created)]),
            (.createdTokenLoaded, .openSilently, .open, [.cacheToken, .notify(.open)]),
            (.createdTokenLoaded, .openWithUI, .open, [.cacheToken, .notify(.open)]),
            (.createdTokenLoaded, .loginSucceeded, .open, [.cacheToken, .notify(.open)]),
            (.createdTokenLoaded, .loginFailed, .createdTokenLoaded, []),
            (.createdTokenLoaded, .loginCancelled, .createdTokenLoaded, []),
            (.createdTokenLoaded, .loginAbandoned, .createdTokenLoaded, []),
            (.createdTokenLoaded, .requestPermissions, .createdTokenLoaded, [.reject(.notOpen)]),
            (.createdTokenLoaded, .permissionsGranted, .createdTokenLoaded, []),
            (.createdTokenLoaded, .permissionsRefused, .createdTokenLoaded, []),
            (.createdTokenLoaded, .refreshRequested, .createdTokenLoaded, [.reject(.notOpen)]),
            (.createdTokenLoaded, .refreshed, .createdTokenLoaded, []),
            (.createdTokenLoaded, .close, .closed, [.notify(.closed)]),
            (.createdTokenLoaded, .closeAndClear, .closed, [.clearCache, .notify(.closed)]),

            (.createdOpening, .tokenLoaded, .createdOpening, []),
            (.createdOpening, .tokenCleared, .createdOpening, []),
            (.createdOpening, .openSilently, .createdOpening, [.reject(.loginInProgress)]),
            (.createdOpening, .openWithUI, .createdOpening, [.reject(.loginInProgress)]),
            (.createdOpening, .loginSucceeded, .open, [.cacheToken, .notify(.open)]),
            (.createdOpening, .loginFailed, .closedLoginFailed, [.notify(.closedLoginFailed)]),
            (.createdOpening, .loginCancelled, .closedLoginFailed, [.notify(.closedLoginFailed)]),
            (.createdOpening, .loginAbandoned, .closedLoginFailed, [.cancelLogin, .notify(.closedLoginFailed)]),
            (.createdOpening, .requestPermissions, .createdOpening, [.reject(.notOpen)]),
            (.createdOpening, .permissionsGranted, .createdOpening, []),
            (.createdOpening, .permissionsRefused, .createdOpening, []),
            (.createdOpening, .refreshRequested, .createdOpening, [.reject(.notOpen)]),
            (.createdOpening, .refreshed, .createdOpening, []),
            (.createdOpening, .close, .closed, [.cancelLogin, .notify(.closed)]),
            (.createdOpening, .closeAndClear, .closed, [.cancelLogin, .clearCache, .notify(.closed)]),
        ]
        for open in [SessionState.open, .openTokenExtended] {
            rows += [
                (open, .tokenLoaded, open, []),
                (open, .tokenCleared, open, []),
                (open, .openSilently, open, [.reject(.alreadyOpen)]),
                (open, .openWithUI, open, [.reject(.alreadyOpen)]),
                (open, .loginSucceeded, open, []),
                (open, .loginFailed, open, []),
                (open, .loginCancelled, open, []),
                (open, .loginAbandoned, open, []),
                (open, .requestPermissions, open, [.showLoginUI]),
                (open, .permissionsGranted, .openTokenExtended, [.cacheToken, .notify(.openTokenExtended)]),
                (open, .permissionsRefused, open, []),
                (open, .refreshRequested, open, [.refreshToken]),
                (open, .refreshed, .openTokenExtended, [.cacheToken, .notify(.openTokenExtended)]),
                (open, .close, .closed, [.notify(.closed)]),
                (open, .closeAndClear, .closed, [.clearCache, .notify(.closed)]),
            ]
        }
        for closed in [SessionState.closedLoginFailed, .closed] {
            for event in SessionEvent.allCases {
                switch event {
                case .openSilently, .openWithUI, .requestPermissions, .refreshRequested:
                    rows.append((closed, event, closed, [.reject(.sessionClosed)]))
                case .closeAndClear:
                    rows.append((closed, event, closed, [.clearCache]))
                default:
                    rows.append((closed, event, closed, []))
                }
            }
        }
        return rows
    }()

    @Test("the table covers every state and event exactly once")
    func tableIsExhaustive() {
        let pairs = Self.table.map { "\($0.from)/\($0.on)" }
        #expect(Set(pairs).count == pairs.count)
        #expect(pairs.count == SessionState.allCases.count * SessionEvent.allCases.count)
        #expect(pairs.count == 105)
    }

    @Test("every transition matches the table", arguments: 0..<105)
    func transition(_ index: Int) {
        let row = Self.table[index]
        let transition = SessionStateMachine.transition(from: row.from, on: row.on)
        #expect(transition.state == row.to, "\(row.from) + \(row.on)")
        #expect(transition.actions == row.actions, "\(row.from) + \(row.on)")
        var machine = SessionStateMachine(state: row.from)
        #expect(machine.handle(row.on) == row.actions)
        #expect(machine.state == row.to)
    }

    /// Feeds events from `created` and returns the states notified along the way.
    static func run(_ events: [SessionEvent], from start: SessionState = .created) -> (SessionState, [SessionState]) {
        var machine = SessionStateMachine(state: start)
        var notified: [SessionState] = []
        for event in events {
            for case .notify(let state) in machine.handle(event) { notified.append(state) }
        }
        return (machine.state, notified)
    }

    @Test("app launch with a cached token: created → createdTokenLoaded → open, no dialog")
    func appLaunchWithToken() {
        var machine = SessionStateMachine()
        #expect(machine.handle(.tokenLoaded) == [.notify(.createdTokenLoaded)])
        let actions = machine.handle(.openSilently)
        #expect(!actions.contains(.showLoginUI))
        #expect(machine.state == .open)
    }

    @Test("app launch without a token stays created")
    func appLaunchWithoutToken() {
        #expect(Self.run([.openSilently]) == (.created, []))
    }

    @Test("login, more permissions granted then refused, logout")
    func fullLifecycle() {
        let (state, notified) = Self.run([
            .openWithUI, .loginSucceeded, .requestPermissions, .permissionsGranted, .requestPermissions,
            .permissionsRefused, .refreshRequested, .refreshed, .closeAndClear, .openWithUI,
        ])
        #expect(state == .closed)
        #expect(notified == [.createdOpening, .open, .openTokenExtended, .openTokenExtended, .closed])
    }

    @Test("a cancelled dialog ends in closedLoginFailed, and a late result changes nothing")
    func cancelledLogin() {
        #expect(
            Self.run([.openWithUI, .loginCancelled, .loginSucceeded, .close]) == (
                .closedLoginFailed, [.createdOpening, .closedLoginFailed]
            ))
    }

    @Test("state names are Facebook's")
    func names() {
        #expect(
            SessionState.allCases.map(\.description) == [
                "FBSessionStateCreated", "FBSessionStateCreatedTokenLoaded", "FBSessionStateCreatedOpening",
                "FBSessionStateOpen",
                "FBSessionStateOpenTokenExtended", "FBSessionStateClosedLoginFailed", "FBSessionStateClosed",
            ])
        #expect(SessionState.allCases.filter(\.isOpen) == [.open, .openTokenExtended])
        #expect(SessionState.allCases.filter(\.isClosed) == [.closedLoginFailed, .closed])
    }
}
