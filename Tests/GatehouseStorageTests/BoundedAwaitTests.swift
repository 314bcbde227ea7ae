import NIOCore
import NIOPosix
import Testing
import GatehouseStorage

/// `valueOrGiveUp` is what keeps the PostgreSQL listener from waiting forever on a query its dead connection
/// will never answer: it must return the future's outcome, or give up on cancellation or after its timeout.
@Suite("Bounded awaits on event-loop futures")
struct BoundedAwaitTests {
    let loop = MultiThreadedEventLoopGroup.singleton.any()

    @Test func returnsTheValueOfAFutureThatCompletes() async throws {
        let promise = loop.makePromise(of: Int.self)
        loop.scheduleTask(in: .milliseconds(5)) { promise.succeed(42) }
        #expect(try await promise.futureResult.valueOrGiveUp(after: .seconds(5)) == 42)
        #expect(try await loop.makeSucceededFuture(7).valueOrGiveUp() == 7)
    }

    @Test func rethrowsTheFuturesError() async throws {
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await loop.makeFailedFuture(Boom()).valueOrGiveUp(after: .seconds(5)) as Int
        }
    }

    @Test func givesUpAfterTheTimeoutOnAFutureThatNeverCompletes() async throws {
        let promise = loop.makePromise(of: Int.self)
        let error = await #expect(throws: NoAnswerInTime.self) {
            try await promise.futureResult.valueOrGiveUp(after: .milliseconds(50))
        }
        #expect(error?.description == "no answer within 50 ms")
        promise.succeed(1)  // a later answer is dropped, not delivered twice
    }

    @Test func givesUpWhenItsTaskIsCancelled() async throws {
        let promise = loop.makePromise(of: Int.self)
        let waiting = Task { try await promise.futureResult.valueOrGiveUp() }
        try await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        promise.succeed(1)
    }

    @Test func aTaskCancelledBeforeItWaitsGivesUpAtOnce() async throws {
        let promise = loop.makePromise(of: Int.self)
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await promise.futureResult.valueOrGiveUp()
        }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        promise.succeed(1)
    }
}
