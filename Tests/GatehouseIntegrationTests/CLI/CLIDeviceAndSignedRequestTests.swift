import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// `gatehouse login --device` (Python plays the person on /device) and `gatehouse signed-request`.
@Suite(.serialized, .tags(.process)) struct CLIDeviceAndSignedRequestTests {
    @Test func deviceLoginPrintsTheCodeWaitsAndLogsIn() async throws {
        let data = try CLIProcess.temporaryDirectory(), cache = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: cache) }
        let server = try await ServedGatehouse.start(
            dataDirectory: .given(data), environment: ["GATEHOUSE_DEVICE_POLL_INTERVAL": "1"])
        defer { server.stop() }
        let common = ["--data-dir", data, "--cache-dir", cache]

        let login = try await ServerProcess(arguments: ["login", "--device", "--permissions", "email"] + common)
        let output = try await login.waitFor("Waiting (the code expires in")
        let url = try #require(
            output.split(separator: " ").first { $0.hasPrefix("http") && $0.hasSuffix("/device") }.map(String.init))
        let code = try #require(
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
                $0.count == 8 && $0.allSatisfy { $0.isUppercase || $0.isNumber }
            })
        let page = try await runPython(
            interopScript("device_person.py"), [url, code, "alice@gatehouse.test", "alice-gatehouse", "continue"]
        ).output
        #expect(
            page.contains("device page: 200 You&#39;re logged in on your device")
                || page.contains("device page: 200 You're logged in on your device"), "\(page)")
        #expect(try await login.waitForExit() == 0, "\(login.output)")
        #expect(login.output.contains("Logged in as Alice Anders (user id "))
        #expect(login.output.contains("Granted: email, public_profile\n"))

        let who = try await CLIProcess.run(["whoami", "--json"] + common)
        let me = try #require(who.json as? [String: Any])
        #expect(me["email"] as? String == "alice@gatehouse.test")
        let fql = try await CLIProcess.run(
            ["graph", "fql", "-f", "q=SELECT name FROM user WHERE uid = me()", "--json"] + common)
        #expect(fql.stdout == #"{"data":[{"name":"Alice Anders"}]}"# + "\n", "\(fql.stderr)")
    }

    @Test func deviceLoginCancelledOnThePhoneExitsWithStatus2() async throws {
        let data = try CLIProcess.temporaryDirectory(), cache = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: cache) }
        let server = try await ServedGatehouse.start(
            dataDirectory: .given(data), environment: ["GATEHOUSE_DEVICE_POLL_INTERVAL": "1"])
        defer { server.stop() }
        let login = try await ServerProcess(arguments: ["login", "--device", "--data-dir", data, "--cache-dir", cache])
        let output = try await login.waitFor("Waiting (the code expires in")
        let url = try #require(
            output.split(separator: " ").first { $0.hasPrefix("http") && $0.hasSuffix("/device") }.map(String.init))
        let code = try #require(
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
                $0.count == 8 && $0.allSatisfy { $0.isUppercase || $0.isNumber }
            })
        _ = try await runPython(
            interopScript("device_person.py"), [url, code, "bob@gatehouse.test", "bob-gatehouse", "cancel"])
        #expect(try await login.waitForExit() == 2)
    }

    @Test func signedRequestMakeAndParse() async throws {
        let made = try await CLIProcess.run([
            "signed-request", "make", "--secret", "s3cret", "--user-id", "42", "--issued-at", "1800000000",
        ])
        #expect(made.status == 0)
        let value = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parsed = try await CLIProcess.run(["signed-request", "parse", "--secret", "s3cret", value])
        #expect(parsed.stdout == #"{"algorithm":"HMAC-SHA256","issued_at":1800000000,"user_id":"42"}"# + "\n")
        let wrong = try await CLIProcess.run(["signed-request", "parse", "--secret", "nope", value])
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr
                == "gatehouse: signed_request rejected: the signature does not match (wrong app secret, or the payload was changed)\n"
        )
        let stale = try await CLIProcess.run([
            "signed-request", "make", "--secret", "s3cret", "--user-id", "42", "--issued-at", "1600000000",
        ])
        let old = try await CLIProcess.run(
            [
                "signed-request", "parse", "--max-age", "60",
                stale.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            ],
            environment: ["GATEHOUSE_APP_SECRET": "s3cret"])
        #expect(old.status == 1)
        #expect(old.stderr.contains("older than --max-age"))
        let garbage = try await CLIProcess.run(["signed-request", "parse", "--secret", "s3cret", "garbage"])
        #expect(garbage.stderr.contains("is not base64url"))
    }

    /// Two "machines" (separate cache folders) share one app session through the server's remote token cache.
    @Test func remoteTokenCacheLogsInTheSecondMachine() async throws {
        let data = try CLIProcess.temporaryDirectory(), cacheA = try CLIProcess.temporaryDirectory(),
            cacheB = try CLIProcess.temporaryDirectory()
        defer { for d in [data, cacheA, cacheB] { try? FileManager.default.removeItem(atPath: d) } }
        let server = try await ServedGatehouse.start(
            dataDirectory: .given(data), environment: ["GATEHOUSE_DEVICE_POLL_INTERVAL": "1"])
        defer { server.stop() }
        let secret = try #require(server.seed?.app.secret)

        // The app's backend makes the session key and proof.
        let made = try await CLIProcess.run(["token-cache", "session", "--secret", secret])
        var session: [String: String] = [:]
        for line in made.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { session[parts[0]] = parts[1] }
        }
        #expect(session.keys.sorted() == ["GATEHOUSE_REMOTE_CACHE_KEY", "GATEHOUSE_REMOTE_CACHE_PROOF"])

        let login = try await ServerProcess(
            arguments: ["login", "--device", "--data-dir", data, "--cache-dir", cacheA], environment: session)
        let output = try await login.waitFor("Waiting (the code expires in")
        let url = try #require(
            output.split(separator: " ").first { $0.hasPrefix("http") && $0.hasSuffix("/device") }.map(String.init))
        let code = try #require(
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
                $0.count == 8 && $0.allSatisfy { $0.isUppercase || $0.isNumber }
            })
        _ = try await runPython(
            interopScript("device_person.py"), [url, code, "alice@gatehouse.test", "alice-gatehouse", "continue"])
        #expect(try await login.waitForExit() == 0, "\(login.output)")
        #expect(!FileManager.default.fileExists(atPath: cacheA + "/token-cache.json"))

        // Machine B: nothing on disk, the same app session.
        let who = try await CLIProcess.run(
            ["whoami", "--json", "--data-dir", data, "--cache-dir", cacheB], environment: session)
        #expect(who.status == 0, "\(who.stderr)")
        #expect((who.json as? [String: Any])?["name"] as? String == "Alice Anders")
        let alone = try await CLIProcess.run(["whoami", "--data-dir", data, "--cache-dir", cacheB])
        #expect(alone.status == 4)
        let out = try await CLIProcess.run(["logout", "--data-dir", data, "--cache-dir", cacheB], environment: session)
        #expect(out.status == 0)
        let after = try await CLIProcess.run(
            ["whoami", "--data-dir", data, "--cache-dir", cacheA], environment: session)
        #expect(after.status == 4)
        var forged = session
        forged["GATEHOUSE_REMOTE_CACHE_PROOF"] = String(repeating: "0", count: 64)
        let refused = try await CLIProcess.run(
            ["whoami", "--data-dir", data, "--cache-dir", cacheA], environment: forged)
        #expect(refused.status == 4)
    }
}
