import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// `gatehouse login` and the commands that use its cached token, against a real `gatehouse serve`,
/// with Python playing the person in the browser.
@Suite(.serialized, .tags(.process)) struct CLILoginTests {
    /// Runs the browser script on a dialog URL.
    static func browse(_ url: String, _ email: String, _ password: String, _ action: [String]) async throws -> String {
        try await runPython(interopScript("browser_login.py"), [url, email, password] + action).output
    }

    /// Starts `gatehouse login --no-browser …`, returns the process and the dialog URL it printed.
    static func startLogin(_ arguments: [String]) async throws -> (ServerProcess, String) {
        let login = try await ServerProcess(arguments: ["login", "--no-browser"] + arguments)
        let output = try await login.waitFor("/dialog/oauth?")
        let line = try #require(
            output.split(separator: "\n").first { $0.hasPrefix("http") && $0.contains("/dialog/oauth?") })
        return (login, String(line))
    }

    @Test func loginThenWhoamiGraphPermissionsTokenAndLogout() async throws {
        let data = try CLIProcess.temporaryDirectory(), cache = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: cache) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(data))
        defer { server.stop() }
        let common = ["--data-dir", data, "--cache-dir", cache]

        let notYet = try await CLIProcess.run(["whoami"] + common)
        #expect(notYet.status == 4)
        #expect(notYet.stderr == "gatehouse: not logged in. Run `gatehouse login`.\n")

        let (login, url) = try await Self.startLogin(["--permissions", "email,user_friends"] + common)
        #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"))
        let page = try await Self.browse(
            url, "alice@gatehouse.test", "alice-gatehouse", ["grant", "public_profile,email"])
        #expect(page.contains("loopback page: 200"), "\(page)")
        let status = try await login.waitForExit()
        #expect(status == 0, "\(login.output)")
        #expect(login.output.contains("Logged in as Alice Anders (user id "))
        #expect(login.output.contains("Granted: email, public_profile\n"))
        #expect(login.output.contains("Declined: user_friends\n"))

        let who = try await CLIProcess.run(["whoami", "--json"] + common)
        #expect(who.status == 0)
        let me = try #require(who.json as? [String: Any])
        #expect(me["name"] as? String == "Alice Anders")
        #expect(me["email"] as? String == "alice@gatehouse.test")

        let graph = try await CLIProcess.run(
            ["graph", "GET", "me", "-f", "fields=first_name,birthday", "--json"] + common)
        #expect(graph.stdout == #"{"first_name":"Alice"}"# + "\n")

        let token = try await CLIProcess.run(["token", "show", "--json"] + common)
        let tokenJSON = try #require(token.json as? [String: Any])
        #expect(tokenJSON["permissions"] as? [String] == ["email", "public_profile"])
        #expect(tokenJSON["token"] == nil)
        #expect(!token.stdout.contains("EAAG"))
        let mode =
            try FileManager.default.attributesOfItem(atPath: cache + "/token-cache.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let unreachable = try await CLIProcess.run(["graph", "me", "--server", "http://127.0.0.1:9"] + common)
        #expect(unreachable.status == 3)
        #expect(unreachable.stderr.contains("cannot reach the Gatehouse server at http://127.0.0.1:9"))

        let revoke = try await CLIProcess.run(["permissions", "revoke", "email"] + common)
        #expect(revoke.status == 0)
        let list = try await CLIProcess.run(["permissions"] + common)
        #expect(list.stdout.contains("email  declined"))

        let removed = try await CLIProcess.run(["permissions", "revoke-all"] + common)
        #expect(removed.status == 0)
        let gone = try await CLIProcess.run(["whoami"] + common)
        #expect(gone.status == 4)

        let out = try await CLIProcess.run(["logout"] + common)
        #expect(out.stdout == "Not logged in.\n")
    }

    @Test func cancellingInTheBrowserExitsWithStatus2() async throws {
        let data = try CLIProcess.temporaryDirectory(), cache = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: cache) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(data))
        defer { server.stop() }
        let (login, url) = try await Self.startLogin([
            "--permissions", "email", "--data-dir", data, "--cache-dir", cache,
        ])
        _ = try await Self.browse(url, "bob@gatehouse.test", "bob-gatehouse", ["cancel"])
        #expect(try await login.waitForExit() == 2)
        let who = try await CLIProcess.run(["whoami", "--data-dir", data, "--cache-dir", cache])
        #expect(who.status == 4)
    }
}

extension CLILoginTests {
    @Test func limitedLoginPrintsTheVerifiedClaimsAndKeepsNoAccessToken() async throws {
        let data = try CLIProcess.temporaryDirectory(), cache = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: cache) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(data))
        defer { server.stop() }
        let common = ["--data-dir", data, "--cache-dir", cache]
        let refused = try await CLIProcess.run(
            ["login", "--no-browser", "--limited", "--permissions", "email,user_posts"] + common)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("must be allowed in Limited Login"))
        let (login, url) = try await Self.startLogin(
            ["--limited", "--nonce", "cli-nonce", "--permissions", "email,user_birthday"] + common)
        #expect(url.contains("tp=ios_14_do_not_track"))
        _ = try await Self.browse(url, "carol@gatehouse.test", "carol-gatehouse", ["grant"])
        #expect(try await login.waitForExit() == 0, "\(login.output)")
        #expect(login.output.contains("Logged in with Limited Login as Carol Chen"))
        #expect(login.output.contains("Verified id_token claims:"))
        #expect(login.output.contains("\"nonce\" : \"cli-nonce\""))
        #expect(login.output.contains("\"email\" : \"carol@gatehouse.test\""))
        let token = try await CLIProcess.run(["token", "show", "--json"] + common)
        let claims = try #require(token.json as? [String: Any])
        #expect(claims["aud"] as? String != nil)
        #expect(claims["nonce"] as? String == "cli-nonce")
        let graph = try await CLIProcess.run(["graph", "me"] + common)
        #expect(graph.status == 4)  // a Limited Login gives no Graph token
    }
}
