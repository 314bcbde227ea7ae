import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension GraphSerialTests {
    /// Cancelling and timing out against a port that accepts connections and never answers.
    @Suite struct CancelAndTimeout {
        /// Settings pointing at `listener`, with a token so requests get sent.
        private func installSilent(_ listener: GraphSilentListener) {
            let settings = Settings()
            settings.appID = "1234"
            settings.clientToken = "client"
            settings.serverURL = listener.url
            GatehouseKitEnvironment.current = GatehouseKitEnvironment(settings: settings)
            ErrorRecovery.loginAttempter = nil
        }

        @Test func cancelGivesEveryCompletionACancellationError() async throws {
            let listener = try GraphSilentListener()
            installSilent(listener)
            let connection = GraphRequestConnection()
            let delegate = GraphRecordingDelegate()
            connection.delegate = delegate
            Task {
                try await Task.sleep(for: .milliseconds(200))
                connection.cancel()
            }
            let outcomes = await GraphTestSupport.run(
                connection,
                [
                    (GraphRequest(graphPath: "me", parameters: ["fields": "id"]), nil),
                    (GraphRequest(graphPath: "1234", parameters: ["fields": "name"]), nil),
                ])
            // No wall-clock bound: on a loaded machine the cancel itself may run seconds late. What shows the
            // cancel worked is the error: the silent listener never answers, so only a cancel ends these calls
            // with URLError.cancelled (a timeout would end them with CoreError .network).
            #expect(outcomes.count == 2)
            for outcome in outcomes {
                #expect((outcome.error as? URLError)?.code == .cancelled)
                #expect(outcome.error.map(ErrorRecovery.category(for:)) == .userCancelled)
            }
            #expect(await delegate.events == ["willBegin", "didFail"])
            #expect(await (delegate.failure as? URLError)?.code == .cancelled)
            // A second cancel and a late add change nothing / fail at once.
            connection.cancel()
            let late = await withCheckedContinuation { continuation in
                connection.add(GraphRequest(graphPath: "me")) { _, _, error in continuation.resume(returning: error) }
            }
            #expect((late as? URLError)?.code == .cancelled)
        }

        @Test func cancellingTheCallingTaskThrowsCancellationError() async throws {
            let listener = try GraphSilentListener()
            installSilent(listener)
            let task = Task { try await GraphRequest(graphPath: "me", parameters: ["fields": "id"]).startJSON() }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }

        @Test func timeoutEndsTheCallWithANetworkError() async throws {
            let listener = try GraphSilentListener()
            installSilent(listener)
            let connection = GraphRequestConnection()
            #expect(connection.timeout == 60)
            connection.timeout = 1
            let started = Date()
            let outcomes = await GraphTestSupport.run(
                connection, [(GraphRequest(graphPath: "me", parameters: ["fields": "id"]), nil)])
            let elapsed = Date().timeIntervalSince(started)
            #expect(elapsed >= 0.9)
            // The 1 s timeout, not the 60 s default, ended it; anything shorter than the default shows that, even
            // on a loaded machine.
            #expect(elapsed < 59)
            #expect((outcomes[0].error as? CoreError)?.code == .network)
        }
    }
}
