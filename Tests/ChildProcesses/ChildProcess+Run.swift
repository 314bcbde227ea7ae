import Foundation
internal import Subprocess
#if canImport(System)
internal import System
#else
internal import SystemPackage
#endif

extension ChildProcess {
    /// What a child that ran to completion printed, and how it ended.
    public struct Completion: Sendable {
        /// The exit code, or 128 + the signal that ended it.
        public var status: Int32
        public var standardOutput: String
        /// Empty when standard error was merged into standard output.
        public var standardError: String
    }

    /// Runs `executable` to completion, without blocking a thread while it runs.
    /// - Parameters:
    ///   - environment: changes to this process's environment; a nil value removes a variable.
    ///   - input: written to the child's standard input, which is then closed (nil: no input at all).
    ///   - mergingStandardError: collect standard error into ``Completion/standardOutput`` (`2>&1`).
    public static func run(
        _ executable: String,
        arguments: [String] = [],
        environment: [String: String?] = [:],
        input: String? = nil,
        mergingStandardError: Bool = false,
        workingDirectory: String? = nil
    ) async throws -> Completion {
        let configuration = Configuration(
            executable: Self.executable(executable),
            arguments: Arguments(arguments),
            environment: Self.environment(environment),
            workingDirectory: workingDirectory.map { FilePath($0) })
        if let input {
            return try await collect(configuration, input: .string(input), merging: mergingStandardError)
        }
        return try await collect(configuration, input: .none, merging: mergingStandardError)
    }

    private static let outputLimit = 64 << 20

    private static func collect<Input: InputProtocol>(
        _ configuration: Configuration, input: Input, merging: Bool
    ) async throws -> Completion {
        if merging {
            let result = try await Subprocess.run(
                configuration, input: input, output: .string(limit: outputLimit), error: .combinedWithOutput)
            return Completion(
                status: exitCode(result.terminationStatus), standardOutput: result.standardOutput, standardError: "")
        }
        let result = try await Subprocess.run(
            configuration, input: input, output: .string(limit: outputLimit), error: .string(limit: outputLimit))
        return Completion(
            status: exitCode(result.terminationStatus),
            standardOutput: result.standardOutput,
            standardError: result.standardError)
    }

    /// The path of an executable SwiftPM built next to the test bundle (`gatehouse`), or `override`'s value
    /// from the environment when set (`GATEHOUSE_BIN`).
    public static func builtProduct(_ name: String, override: String? = nil) -> String {
        if let override, let path = ProcessInfo.processInfo.environment[override] { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return ".build/debug/" + name
    }
}
