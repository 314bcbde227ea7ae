import Dispatch

/// The threads RSA signatures are computed on: Dispatch's, never the server's event loops.
///
/// The `gatehouse` executable runs Swift Concurrency's jobs on SwiftNIO's event loops (see `main.swift`). An
/// RS256 signature takes about 0.8 ms of CPU; run on the loop that also reads the sockets, 32 connections
/// asking for id_tokens at once left some of them waiting over a second (`docs/BENCHMARKS.md`). A task that
/// prefers this executor computes the signature on a Dispatch thread while the loop goes on serving.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class SigningThreads: TaskExecutor {
    static let shared = SigningThreads()

    private let queue = DispatchQueue(label: "gatehouse.signing", qos: .userInitiated, attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs `body` preferring ``SigningThreads`` where the platform has task executors, and as it is elsewhere.
func onSigningThreads<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
        return try await withTaskExecutorPreference(SigningThreads.shared) { try await body() }
    }
    return try await body()
}
