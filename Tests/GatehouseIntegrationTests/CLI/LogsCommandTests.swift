import ChildProcesses
import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import Testing
import NIOHTTP1

/// `gatehouse logs` against a running `gatehouse serve`: recent requests with their reasons, filters, JSON lines,
/// and `--follow`.
@Suite(.serialized, .tags(.process)) struct LogsCommandTests {
    @Test func logsShowsWhyRequestsWereRefusedAndFollows() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { server.stop() }
        let base = server.baseURL, appID = try #require(server.seed?.app.id)
        func get(_ path: String) async throws -> Int {
            let reply = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(30))
            _ = try await reply.body.collect(upTo: 1 << 20)
            return Int(reply.status.code)
        }
        let common = ["--data-dir", dir]

        #expect(try await get("/dialog/oauth?client_id=\(appID)&redirect_uri=http://localhost:3000/cb") == 400)
        #expect(try await get("/v27.0/me?access_token=EAAGnotatoken") == 400)

        let plain = try await CLIProcess.run(["logs"] + common)
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("400 GET /dialog/oauth  Gatehouse Demo"))
        #expect(
            plain.stdout.contains(
                "    why: redirect_uri `http://localhost:3000/cb` is not registered for app Gatehouse Demo"))
        #expect(plain.stdout.contains("400 GET /v27.0/me  error 190"))

        let dialogOnly = try await CLIProcess.run(
            ["logs", "--errors", "--route", "dialog", "--app", appID, "--json"] + common)
        let lines = dialogOnly.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(
            entry["kind"] as? String == "dialog" && entry["status"] as? Int == 400
                && entry["app_id"] as? String == appID)
        #expect((entry["explanation"] as? String)?.contains("is not registered") == true)

        let none = try await CLIProcess.run(["logs", "--status", "5xx"] + common)
        #expect(none.stdout == "no requests recorded that match\n")

        // --follow prints what happens after it started, and only that.
        let follower = try await ServerProcess(
            arguments: ["logs", "--follow", "--errors", "--limit", "1", "--interval", "0.2"] + common)
        defer { follower.stop() }
        _ = try await follower.waitFor("400 GET /v27.0/me", timeout: 30)
        #expect(
            try await get("/v27.0/oauth/access_token?client_id=\(appID)&client_secret=wrong-secret-1234&code=x") == 400)
        let followed = try await follower.waitFor("client_secret …1234 does not match", timeout: 30)
        #expect(!followed.contains("/dialog/oauth"))
        await follower.stopAndWait()
    }
}
