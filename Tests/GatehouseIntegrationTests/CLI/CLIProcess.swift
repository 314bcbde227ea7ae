import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Runs the built `gatehouse` executable, as a person or script would.
struct CLIProcess {
    /// The executable next to the test bundle (SwiftPM builds both into the same products folder).
    static var executable: String { ChildProcess.builtProduct("gatehouse") }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    }

    /// Runs to completion; waiting for the child blocks no thread.
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws
        -> Output
    {
        let done = try await ChildProcess.run(executable, arguments: arguments, environment: environment, input: input)
        return Output(status: done.status, stdout: done.standardOutput, stderr: done.standardError)
    }

    /// A new, empty folder; the test removes it in a `defer`. A `gatehouse` child only asked to stop (`stop()`)
    /// may still be writing into it then, so it is also registered for `ScratchDirectory`'s exit sweep.
    static func temporaryDirectory() throws -> String {
        try ScratchDirectory.create("cli").path
    }
}

/// A long-running `gatehouse` child other than `serve` (`login`, `dialog`, `logs --follow`, `bench-reference`),
/// stopped with SIGTERM. Only its standard output is collected: that is what a person at the terminal reads.
/// `gatehouse serve` is started with `ServedGatehouse`, which also waits until it is ready and reads its seed.
final class ServerProcess: Sendable {
    let child: ChildProcess

    init(arguments: [String], environment: [String: String] = [:]) async throws {
        child = try await ChildProcess.start(
            CLIProcess.executable, arguments: arguments, environment: environment, standardError: .discarded)
    }

    var output: String { child.output }

    /// Waits until stdout contains `marker`, or fails after `timeout` seconds.
    func waitFor(_ marker: String, timeout: TimeInterval = 90) async throws -> String {
        guard let text = await child.waitForOutput(containing: marker, timeout: .seconds(timeout)) else {
            throw ServerError.notReady(output)
        }
        return text
    }

    /// Waits for the process to end by itself; nil if it is still running after `timeout` seconds.
    func waitForExit(timeout: TimeInterval = 60) async throws -> Int32? {
        await child.exitStatus(timeout: .seconds(timeout))
    }

    /// Sends SIGTERM and returns at once (usable in `defer`).
    func stop() { child.terminate() }

    /// Sends SIGTERM and waits for the exit: its status.
    @discardableResult
    func stopAndWait() async -> Int32 {
        child.terminate()
        return await child.waitForExit()
    }

    enum ServerError: Error { case notReady(String) }
}

/// Runs `python3 script args…` and returns its combined output and exit status.
func runPython(_ script: String, _ arguments: [String]) async throws -> (output: String, status: Int32) {
    let done = try await ChildProcess.run("python3", arguments: [script] + arguments, mergingStandardError: true)
    return (done.standardOutput, done.status)
}

/// A file next to the calling test file, e.g. `Interop/…py`.
func interopScript(_ name: String, near file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Interop/" + name).path
}
