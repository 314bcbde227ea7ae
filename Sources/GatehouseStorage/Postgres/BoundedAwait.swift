import NIOConcurrencyHelpers
import NIOCore

/// Thrown by ``EventLoopFuture/valueOrGiveUp(after:)`` when the future has not completed in time.
package struct NoAnswerInTime: Error, CustomStringConvertible {
    package let timeout: TimeAmount
    package var description: String { "no answer within \(timeout.nanoseconds / 1_000_000) ms" }
}

extension EventLoopFuture where Value: Sendable {
    /// Waits for the future, but gives up when the task is cancelled (throwing `CancellationError`) or, when
    /// `timeout` is set, once it has passed (throwing ``NoAnswerInTime``).
    ///
    /// `get()` ignores cancellation, and postgres-nio 1.33 never completes a query written to a connection whose
    /// pipeline has just been torn down (it writes with a `nil` promise). A task group awaiting such a query
    /// could never finish, so every await on the listener's connection goes through here instead.
    package func valueOrGiveUp(after timeout: TimeAmount? = nil) async throws -> Value {
        let waiter = OneShotWaiter<Value>()
        let timer = timeout.map { timeout in
            eventLoop.scheduleTask(in: timeout) { waiter.resolve(.failure(NoAnswerInTime(timeout: timeout))) }
        }
        defer { timer?.cancel() }
        whenComplete { waiter.resolve($0) }
        return try await withTaskCancellationHandler {
            try await waiter.wait()
        } onCancel: {
            waiter.resolve(.failure(CancellationError()))
        }
    }
}

/// A continuation that the first of several racing outcomes resumes; later outcomes are dropped.
private final class OneShotWaiter<Value: Sendable>: Sendable {
    private enum State: Sendable {
        case idle
        case waiting(CheckedContinuation<Value, any Error>)
        case resolvedEarly(Result<Value, any Error>)
        case done
    }

    private let state = NIOLockedValueBox(State.idle)

    func wait() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let early: Result<Value, any Error>? = state.withLockedValue { state in
                switch state {
                case .idle:
                    state = .waiting(continuation)
                    return nil
                case .resolvedEarly(let result):
                    state = .done
                    return result
                case .waiting, .done:
                    preconditionFailure("OneShotWaiter.wait() called twice")
                }
            }
            if let early { continuation.resume(with: early) }
        }
    }

    func resolve(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLockedValue { state in
            switch state {
            case .idle:
                state = .resolvedEarly(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .resolvedEarly, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
