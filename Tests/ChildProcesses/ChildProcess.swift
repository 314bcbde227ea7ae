import Foundation
internal import Subprocess
#if canImport(System)
internal import System
#else
internal import SystemPackage
#endif

/// A child process a test starts and later stops: a `gatehouse serve`, chromedriver, nginx.
///
/// Built on swift-subprocess rather than Foundation's `Process`. On Linux, `Process.run()` (Swift 6.3's
/// swift-corelibs-foundation) copies a whole 256-byte `d_name` out of each `/proc/self/fd` entry, which can
/// read past the end of glibc's readdir buffer and trap; a test process that spawns dozens of children with
/// many descriptors open hit it in most full runs (swift-corelibs-foundation#5472, fixed after 6.3).
///
/// Standard output (and standard error, unless sent elsewhere) is collected in memory for ``output``.
/// Signals go through the process descriptor while the child is alive and are dropped once it has been reaped,
/// so a late `terminate()` never reaches a process that reused the number.
public final class ChildProcess: @unchecked Sendable {
    /// Where the child's standard error goes.
    public enum StandardError: Sendable {
        /// Into the same buffer as standard output (`2>&1`).
        case merged
        /// Nowhere.
        case discarded
        /// Appended to the file at this path (created if missing).
        case file(String)
    }

    /// The child's process id.
    public let pid: Int32
    private let state: State
    private let signals: AsyncStream<Int32>.Continuation

    private init(pid: Int32, state: State, signals: AsyncStream<Int32>.Continuation) {
        self.pid = pid
        self.state = state
        self.signals = signals
    }

    /// Starts `executable` (a path, or a name looked up in `PATH`) and returns once it runs.
    /// - Parameter environment: changes to this process's environment; a nil value removes a variable.
    public static func start(
        _ executable: String,
        arguments: [String] = [],
        environment: [String: String?] = [:],
        standardError: StandardError = .merged,
        workingDirectory: String? = nil
    ) async throws -> ChildProcess {
        let configuration = Configuration(
            executable: ChildProcess.executable(executable),
            arguments: Arguments(arguments),
            environment: ChildProcess.environment(environment),
            workingDirectory: workingDirectory.map { FilePath($0) })
        switch standardError {
        case .merged: return try await launch(configuration, error: .combinedWithOutput)
        case .discarded: return try await launch(configuration, error: .discarded)
        case .file(let path):
            let descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead])
            return try await launch(configuration, error: .fileDescriptor(descriptor, closeAfterSpawningProcess: true))
        }
    }

    private static func launch<ErrorOutput: ErrorOutputProtocol>(
        _ configuration: Configuration, error: ErrorOutput
    ) async throws -> ChildProcess {
        let state = State()
        let (signalStream, signals) = AsyncStream.makeStream(of: Int32.self)
        let started = StartSignal()
        let pid: Int32 = try await withCheckedThrowingContinuation { continuation in
            started.set(continuation)
            Task {
                do {
                    let result = try await Subprocess.run(configuration, input: .none, output: .sequence, error: error)
                    { execution in
                        started.resume(with: .success(execution.processIdentifier.value))
                        await withTaskGroup(of: Void.self) { group in
                            // The body keeps the child unreaped while it runs, so these signals reach this child.
                            group.addTask {
                                for await signal in signalStream {
                                    try? execution.send(signal: Signal(rawValue: signal))
                                }
                            }
                            do {
                                for try await chunk in execution.standardOutput {
                                    chunk.withUnsafeBytes { state.append($0) }
                                }
                            } catch {
                                // The child ended while its output was read: what arrived is kept.
                            }
                            signals.finish()
                        }
                    }
                    state.finish(status: Self.exitCode(result.terminationStatus))
                } catch {
                    started.resume(with: .failure(error))
                    signals.finish()
                    state.finish(status: -1)
                }
            }
        }
        return ChildProcess(pid: pid, state: state, signals: signals)
    }

    /// Everything the child wrote to standard output (and standard error when merged) so far.
    public var output: String { state.output }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { state.status == nil }

    /// Sends `signal` if the child still runs.
    public func send(signal: Int32) { signals.yield(signal) }

    /// SIGTERM: the graceful shutdown path.
    public func terminate() { send(signal: SIGTERM) }

    /// SIGKILL, then waits until the child is gone; its status (128 + 9 unless it had already exited).
    @discardableResult
    public func kill() async -> Int32 {
        send(signal: SIGKILL)
        return await waitForExit()
    }

    /// Waits for the child to end: its exit code, or 128 + the signal that ended it.
    @discardableResult
    public func waitForExit() async -> Int32 {
        while true {
            if let status = state.status { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The exit status once the child has ended, or nil if it still runs after `timeout`.
    public func exitStatus(timeout: Duration) async -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if let status = state.status { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return state.status
    }

    /// Waits until ``output`` contains `marker`; nil if the child exits first or `timeout` passes.
    public func waitForOutput(containing marker: String, timeout: Duration) async -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let text = output
            if text.contains(marker) { return text }
            if !isRunning { return output.contains(marker) ? output : nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits for a whole line "`marker` PORT" (e.g. a receiver's "listening on 41234") and returns PORT; nil at the
    /// deadline or when the child exits without printing it. Only an ended line is read: an unbuffered child writes
    /// "listening on" and its port in separate writes, and the text between them is not a port.
    public func waitForPort(after marker: String, timeout: Duration) async -> Int? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if let port = Self.port(after: marker, in: output) { return port }
            if !isRunning { return Self.port(after: marker, in: output) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// The number after `marker` on the first ended line that has it.
    static func port(after marker: String, in text: String) -> Int? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            guard let range = line.range(of: marker) else { continue }
            return Int(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    deinit {
        // A test that forgot to stop its child must not leave it running after the suite.
        signals.yield(SIGKILL)
    }

    static func exitCode(_ status: TerminationStatus) -> Int32 {
        switch status {
        case .exited(let code): return code
        case .signaled(let signal): return 128 + signal
        }
    }

    static func executable(_ name: String) -> Executable {
        name.contains("/") ? .path(FilePath(name)) : .name(name)
    }

    static func environment(_ changes: [String: String?]) -> Subprocess.Environment {
        var updates: [Subprocess.Environment.Key: String?] = [:]
        for (name, value) in changes {
            guard let key = Subprocess.Environment.Key(rawValue: name) else { continue }
            updates[key] = value
        }
        return updates.isEmpty ? .inherit : .inherit.updating(updates)
    }
}

/// The collected output and the exit status, shared by the reading task and the test.
private final class State: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var exitStatus: Int32?

    func append(_ buffer: UnsafeRawBufferPointer) { lock.withLock { bytes.append(contentsOf: buffer) } }
    var output: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    var status: Int32? { lock.withLock { exitStatus } }
    func finish(status: Int32) { lock.withLock { exitStatus = status } }
}

/// Resumes the starter once: with the pid when the child runs, or with the error that kept it from starting.
private final class StartSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Int32, any Error>?

    func set(_ continuation: CheckedContinuation<Int32, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func resume(with result: Result<Int32, any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<Int32, any Error>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }
}
