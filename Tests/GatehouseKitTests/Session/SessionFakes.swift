import Foundation
import GatehouseKit

/// Fakes of the session's two collaborators.
enum SessionFakes {
    struct TestError: Error, Equatable { let reason: String }

    /// A login dialog that answers with scripted outcomes, or waits for the test when the script runs out.
    final class LoginProvider: SessionLoginProviding, @unchecked Sendable {
        struct Call: Equatable {
            let permissions: [String]
            let authType: String?
            let audience: DefaultAudience
        }

        private let lock = NSLock()
        private var script: [SessionLoginOutcome]
        private var waiting: [CheckedContinuation<SessionLoginOutcome, Never>] = []
        private var _calls: [Call] = []
        /// Runs inside `logIn` before answering, like `LoginManager` setting `AccessToken.current`.
        let beforeAnswer: (@Sendable (SessionLoginOutcome) -> Void)?

        init(_ script: [SessionLoginOutcome] = [], beforeAnswer: (@Sendable (SessionLoginOutcome) -> Void)? = nil) {
            self.script = script
            self.beforeAnswer = beforeAnswer
        }

        var calls: [Call] { lock.withLock { _calls } }
        var waitingCount: Int { lock.withLock { waiting.count } }

        func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async
            -> SessionLoginOutcome
        {
            let scripted: SessionLoginOutcome? = lock.withLock {
                _calls.append(Call(permissions: permissions, authType: authType, audience: defaultAudience))
                return script.isEmpty ? nil : script.removeFirst()
            }
            let outcome: SessionLoginOutcome
            if let scripted {
                outcome = scripted
            } else {
                outcome = await withCheckedContinuation { continuation in lock.withLock { waiting.append(continuation) }
                }
            }
            beforeAnswer?(outcome)
            return outcome
        }

        /// Answers the oldest dialog still waiting.
        func answer(_ outcome: SessionLoginOutcome) {
            let continuation = lock.withLock { waiting.isEmpty ? nil : waiting.removeFirst() }
            continuation?.resume(returning: outcome)
        }
    }

    /// A refresher with scripted results.
    final class Refresher: SessionTokenRefreshing, @unchecked Sendable {
        private let lock = NSLock()
        private var script: [Result<AccessToken, TestError>]
        private var _received: [AccessToken] = []

        init(_ script: [Result<AccessToken, TestError>]) { self.script = script }

        var received: [AccessToken] { lock.withLock { _received } }

        func refresh(_ token: AccessToken) async throws -> AccessToken {
            let next = lock.withLock {
                _received.append(token)
                return script.removeFirst()
            }
            return try next.get()
        }
    }

    /// Collects what a session's state-change handler hears.
    final class HandlerLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(SessionState, (any Error)?)] = []

        var handler: Session.StateHandler {
            { [self] _, state, error in lock.withLock { entries.append((state, error)) } }
        }

        var states: [SessionState] { lock.withLock { entries.map(\.0) } }
        var errors: [(any Error)?] { lock.withLock { entries.map(\.1) } }
        var count: Int { lock.withLock { entries.count } }
    }

    /// Collects one request's completion.
    final class CompletionLog: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [(any Error)?] = []

        var completion: Session.RequestCompletion {
            { [self] _, error in lock.withLock { results.append(error) } }
        }

        var all: [(any Error)?] { lock.withLock { results } }
    }
}
