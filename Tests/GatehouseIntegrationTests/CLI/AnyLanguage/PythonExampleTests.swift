import ChildProcesses
import Foundation
import Testing

/// Issue 28, item 5: `examples/python` is a test suite with no Swift in it. Its fixture starts `gatehouse serve` in
/// production mode with an admin token, resets the state through `/admin/api/v1` before each test, creates an app
/// and a person, has facebook-sdk (from PyPI, unmodified) exchange a minted code, calls `/me`, revokes a token and
/// sees 190. Here it runs as a user would run it, with pytest, against the binary this build made.
@Suite(.tags(.process)) struct PythonExampleTests {
    static var examples: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/python").path
    }

    @Test func thePytestSuitePassesAgainstAProductionServer() async throws {
        // -rfE: pytest ends its output with a line per failing or erroring test, its name and its message;
        // --tb=short keeps each traceback to the lines that raised.
        let done = try await ChildProcess.run(
            "python3",
            arguments: ["-m", "pytest", "-q", "-rfE", "--tb=short", "-p", "no:cacheprovider", Self.examples],
            environment: ["GATEHOUSE_BIN": CLIProcess.executable, "GATEHOUSE_URL": nil, "GATEHOUSE_ADMIN_TOKEN": nil],
            mergingStandardError: true, workingDirectory: Self.examples)
        // A failure's message is pytest's whole output (the fixture's errors include what the server printed).
        #expect(
            done.status == 0 && done.standardOutput.contains("4 passed"),
            "pytest exited with status \(done.status); its output:\n\(done.standardOutput)")
    }
}
