import Foundation
import GatehouseTestSupport
@testable import GatehouseCLI
import Logging
import Testing
import ChildProcesses

/// `serve --log-format json` / `GATEHOUSE_LOG_FORMAT=json` (issue 29): one JSON object per line on standard output,
/// no secrets; and `--version`.
@Suite(.serialized, .tags(.process)) struct CLILogFormatTests {
    /// Collects a handler's lines.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func append(_ line: String) { lock.withLock { stored.append(line) } }
        var all: [String] { lock.withLock { stored } }
    }

    @Test func aRecordIsOneLineOfJSONWithCredentialsRedacted() throws {
        let lines = Lines()
        let time = Date(timeIntervalSince1970: 1_767_323_045.5)  // 2026-01-02T03:04:05.500Z (exact in binary)
        var logger = Logger(label: "gatehouse") { label in
            JSONLogHandler(label: label, write: lines.append, now: { time })
        }
        logger[metadataKey: "node"] = "a"
        logger.notice(
            "two\nlines \"quoted\"",
            metadata: [
                "app": "42", "client_secret": "s3cr3t", "access_token": "EAAB-token", "Password": "hunter2",
                "code": "auth-code", "nested": ["token": "t", "ids": ["1", "2"]], "message": "kept",
            ])
        logger.debug("below the level, not written")

        #expect(
            lines.all == [
                #"{"time":"2026-01-02T03:04:05.500Z","level":"notice","label":"gatehouse","message":"two\nlines \"quoted\"","#
                    + #""Password":"[redacted]","access_token":"[redacted]","app":"42","client_secret":"[redacted]","code":"[redacted]","#
                    + #""metadata.message":"kept","nested":{"ids":["1","2"],"token":"[redacted]"},"node":"a","source":"GatehouseIntegrationTests"}"#
                    + "\n"
            ])
    }

    @Test func serveWritesOnlyJSONLinesToStandardOutputWithoutTheSeedsSecrets() async throws {
        for useEnvironment in [false, true] {
            let dir = try CLIProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // Standard output only: standard error is not what this test reads.
            let server = try await ServedGatehouse.start(
                useEnvironment ? [] : ["--log-format", "json"], dataDirectory: .given(dir),
                environment: useEnvironment ? ["GATEHOUSE_LOG_FORMAT": "json"] : [:], standardError: .discarded)
            #expect(await server.stopAndWait() == 0)
            let output = server.output
            let records = output.split(separator: "\n").map { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
            #expect(records.count >= 3)
            #expect(records.allSatisfy { $0 != nil }, "every line is a JSON object: \(output)")
            let listening = try #require(records.compactMap { $0 }.first { $0["message"] as? String == "listening" })
            #expect(listening["mode"] as? String == "development")
            #expect(listening["dev_seed_file"] as? String == dir + "/dev-seed.json")
            #expect(records.compactMap { $0?["message"] as? String }.last == "Gatehouse stopped")

            let seed = try #require(server.seed)
            let secrets = [seed.app.secret, seed.app.clientToken] + seed.users.map(\.password)
            #expect(secrets.count == 5)
            for secret in secrets { #expect(!output.contains(secret)) }
        }
    }

    @Test func anUnknownLogFormatIsRefusedBeforeListening() async throws {
        let out = try await CLIProcess.run(
            ["serve", "--port", "0", "--data-dir", "/nonexistent"],
            environment: ["GATEHOUSE_LOG_FORMAT": "xml"])
        #expect(out.status == 1)
        #expect(
            out.stderr == "gatehouse: log format must be text or json, not xml (--log-format or GATEHOUSE_LOG_FORMAT)\n"
        )
        #expect(out.stdout.isEmpty)
    }

    @Test func versionPrintsTheNumberCommitAndDateAndTheChangelogNamesIt() async throws {
        let out = try await CLIProcess.run(["--version"])
        #expect(out.status == 0)
        // A `swift build` binary: scripts/release stamps the commit and date into its snapshot only.
        #expect(out.stdout == "\(GatehouseVersion.number) (commit dev, built dev)\n")
        let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("CHANGELOG.md")
        let text = try String(contentsOf: changelog, encoding: .utf8)
        let newest = text.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(GatehouseVersion.number) ") == true)
    }
}
