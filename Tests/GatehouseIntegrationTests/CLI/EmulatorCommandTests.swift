import ChildProcesses
import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import Testing
import NIOHTTP1

/// `gatehouse clock`, `inject`, `export` and `import` against a running `gatehouse serve`.
@Suite(.serialized, .tags(.process)) struct EmulatorCommandTests {
    @Test func clockInjectExportImportFromTheTerminal() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { server.stop() }
        let seed = try #require(server.seed)
        let base = server.baseURL, appID = seed.app.id, secret = seed.app.secret
        let alice = try #require(seed.users.first?.email)
        let common = ["--data-dir", dir]

        // A test user with a token, to have something to break.
        var create = HTTPClientRequest(
            url:
                "\(base)/\(appID)/accounts/test-users?installed=true&permissions=email&access_token=\(appID)%7C\(secret)"
        )
        create.method = .POST
        let made = try await HTTPClient.shared.execute(create, timeout: .seconds(30))
        let madeBody = try await made.body.collect(upTo: 1 << 16)
        let madeJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(String(buffer: madeBody).utf8)) as? [String: Any])
        let token = try #require(madeJSON["access_token"] as? String)
        func me() async throws -> (Int, [String: Any]) {
            let reply = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "\(base)/me?access_token=\(token)"), timeout: .seconds(30))
            let body = try await reply.body.collect(upTo: 1 << 16)
            let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8))
            return (Int(reply.status.code), object as? [String: Any] ?? [:])
        }

        let shown = try await CLIProcess.run(["clock"] + common)
        #expect(shown.status == 0)
        #expect(shown.stdout.hasPrefix("server time ") && shown.stdout.contains("(real time)"))

        let injected = try await CLIProcess.run(
            ["inject", "--token", token, "--error", "190/460", "--times", "1"] + common)
        #expect(injected.status == 0)
        #expect(injected.stdout.hasPrefix("injected 190/460 for token "))
        let listed = try await CLIProcess.run(["inject", "list", "--json"] + common)
        #expect(((listed.json as? [String: Any])?["data"] as? [Any])?.count == 1)
        let broken = try await me()
        #expect(broken.0 == 400)
        #expect((broken.1["error"] as? [String: Any])?["error_subcode"] as? Int == 460)
        #expect(try await me().0 == 200)

        let forever = try await CLIProcess.run(["inject", "--user", alice, "--error", "transient"] + common)
        #expect(forever.stdout.contains("until cleared"))
        #expect(try await CLIProcess.run(["inject", "clear"] + common).stdout == "cleared all injected errors\n")
        let bad = try await CLIProcess.run(["inject", "--app", appID, "--error", "999"] + common)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("gatehouse: unknown error \"999\""))

        // Export, move the clock past the token's life, import: the fixture brings back the old offset (none).
        let file = dir + "/fixtures.json"
        let exported = try await CLIProcess.run(["export", "--output", file] + common)
        #expect(exported.status == 0)
        let fixtureData = try #require(FileManager.default.contents(atPath: file))
        let fixture = try #require(try JSONSerialization.jsonObject(with: fixtureData) as? [String: Any])
        #expect(fixture["format"] as? String == "gatehouse-state")
        #expect((fixture["apps"] as? [[String: Any]])?.first?["id"] as? String == appID)

        let moved = try await CLIProcess.run(["clock", "advance", "61d", "--json"] + common)
        #expect((moved.json as? [String: Any])?["offset_seconds"] as? Int == 5_270_400)
        let expired = try await me()
        #expect((expired.1["error"] as? [String: Any])?["error_subcode"] as? Int == 463)

        let imported = try await CLIProcess.run(["import", file] + common)
        #expect(imported.status == 0)
        #expect(imported.stdout.hasPrefix("imported 1 apps, 4 people, "))
        #expect(try await me().0 == 200)
        #expect(try await CLIProcess.run(["clock", "--json"] + common).stdout.contains(#""offset_seconds":0"#))
    }

    @Test func noServerMeansExitStatus3() async throws {
        let unreachable = try await CLIProcess.run(["clock", "--server", "http://127.0.0.1:9"])
        #expect(unreachable.status == 3)
        #expect(unreachable.stderr.contains("cannot reach the Gatehouse server at http://127.0.0.1:9"))
    }
}
