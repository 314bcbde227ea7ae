import Foundation
import Testing

/// Runs the built `gatehouse` executable, as a person or script would.
struct CLIProcess {
    /// The executable next to the test bundle (SwiftPM builds both into the same products folder).
    static var executable: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("gatehouse")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/gatehouse")
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    }

    /// Runs to completion on a dispatch thread: waiting for a child process must not block one of the
    /// (on two cores, two) threads Swift concurrency runs every other test on.
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(arguments, environment: environment, input: input) })
            }
        }
    }

    static func runBlocking(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }
}

/// A `gatehouse serve` child process, stopped with SIGTERM.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let out = Pipe()
    private let lock = NSLock()
    private var buffer = Data()

    init(arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = CLIProcess.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.withLock { self.buffer.append(data) }
        }
        try process.run()
    }

    var output: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    /// Waits until stdout contains `marker`, or fails after `timeout` seconds.
    func waitFor(_ marker: String, timeout: TimeInterval = 90) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = output
            if text.contains(marker) { return text }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ServerError.notReady(output)
    }

    /// Waits for the process to end by itself; nil if it is still running after `timeout` seconds.
    func waitForExit(timeout: TimeInterval = 60) async throws -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { return nil }
        try await Task.sleep(for: .milliseconds(100)) // let the last output arrive
        return process.terminationStatus
    }

    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        out.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }

    enum ServerError: Error { case notReady(String) }
}

/// Runs `python3 script args…` on a dispatch thread and returns its combined output and exit status.
func runPython(_ script: String, _ arguments: [String]) async throws -> (output: String, status: Int32) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["python3", script] + arguments
                let out = Pipe()
                process.standardOutput = out
                process.standardError = out
                try process.run()
                let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (text, process.terminationStatus)
            })
        }
    }
}

/// A file next to the calling test file, e.g. `Interop/…py`.
func interopScript(_ name: String, near file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Interop/" + name).path
}
