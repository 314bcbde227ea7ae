import AsyncHTTPClient
import ChildProcesses
import Foundation
import GatehouseTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// `gatehouse tokens mint|list|revoke|revoke-all` (issue 28, item 3): user tokens without a browser, on the local
/// database and through a production server's admin API, run as the real binary.
@Suite(.serialized, .tags(.process)) struct CLITokensTests {
    /// GET `/v27.0/me` with the token: status and JSON body.
    static func me(_ base: String, _ token: String) async throws -> (UInt, [String: Any]) {
        let reply = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(base)/v27.0/me?fields=id,name,email&access_token=\(token)"),
            timeout: .seconds(30))
        let body = try await reply.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any] ?? [:]
        return (reply.status.code, json)
    }

    @Test func aTokenMintedThroughTheServerAnswersMeUntilItIsRevoked() async throws {
        let p = try await RemoteCLITests.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]
        let app = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json"] + remote)
        let appID = try #require((app.json as? [String: Any])?["id"] as? String)
        let alice = try await CLIProcess.run(
            [
                "users", "create", "--email", "alice@example.com", "--password", "alice-password", "--first-name",
                "Alice", "--last-name", "Anders", "--json",
            ] + remote)
        let aliceID = try #require((alice.json as? [String: Any])?["id"] as? String)

        // The plain form prints the token alone, for `TOKEN=$(gatehouse tokens mint …)`.
        let minted = try await CLIProcess.run(
            ["tokens", "mint", "--app", appID, "--user", "alice@example.com", "--scope", "email"] + remote)
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .newlines)
        #expect(token.hasPrefix("EAA") && !token.contains(" "))
        let (status, me) = try await Self.me(p.base, token)
        #expect(status == 200)
        #expect(me["name"] as? String == "Alice Anders")
        #expect(me["email"] as? String == "alice@example.com")

        // The list shows the API's objects, never the token itself.
        let listed = try await CLIProcess.run(["tokens", "list", "--user", "alice@example.com", "--json"] + remote)
        #expect(listed.status == 0, "\(listed.stderr)")
        let tokens = try #require(listed.json as? [[String: Any]])
        #expect(tokens.count == 1)
        let tokenID = try #require(tokens.first?["id"] as? String)
        #expect(tokens.first?["app_id"] as? String == appID)
        #expect(tokens.first?["person_id"] as? String == aliceID)
        #expect(tokens.first?["scopes"] as? [String] == ["public_profile", "email"])
        #expect(tokens.first?["origin"] as? String == "admin_api")
        #expect(!listed.stdout.contains(token))

        let revoked = try await CLIProcess.run(["tokens", "revoke", tokenID] + remote)
        #expect(revoked.stdout == "revoked token \(tokenID)\n", "\(revoked.stderr)")
        let (after, error) = try await Self.me(p.base, token)
        #expect(after == 400)
        #expect((error["error"] as? [String: Any])?["code"] as? Int == 190)
        let again = try await CLIProcess.run(["tokens", "revoke", tokenID] + remote)
        #expect(again.status == 1)
        #expect(again.stderr == "gatehouse: there is no live token \(tokenID)\n")

        // Two more, then all of the app's at once; a read-only token may list but not mint.
        for _ in 0..<2 {
            #expect(
                try await CLIProcess.run(["tokens", "mint", "--app", appID, "--user", aliceID] + remote).status == 0)
        }
        let all = try await CLIProcess.run(["tokens", "revoke-all", "--app", appID, "--json"] + remote)
        #expect(all.json as? [String: Int] == ["revoked": 2], "\(all.stderr)")
        let readOnly = ["--server", p.base, "--admin-token", p.readOnly]
        #expect(try await CLIProcess.run(["tokens", "list"] + readOnly).stdout == "No live tokens.\n")
        let refused = try await CLIProcess.run(["tokens", "mint", "--app", appID, "--user", aliceID] + readOnly)
        #expect(refused.status == 1)
        #expect(refused.stderr == "gatehouse: this admin token is read-only\n")
    }

    @Test func theLocalDatabaseRunsTheSameOperations() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let local = ["--data-dir", dir]
        let app = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json"] + local)
        let appID = try #require((app.json as? [String: Any])?["id"] as? String)
        let bob = try await CLIProcess.run(
            [
                "users", "create", "--email", "bob@example.com", "--password", "bob-password", "--first-name", "Bob",
                "--last-name", "Brown", "--json",
            ] + local)
        let bobID = try #require((bob.json as? [String: Any])?["id"] as? String)

        let minted = try await CLIProcess.run(
            [
                "tokens", "mint", "--app", appID, "--user", "bob@example.com", "--scope", "user_friends",
                "--expires-in", "3600", "--json",
            ] + local)
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = try #require(minted.json as? [String: Any])
        #expect(token["person_id"] as? String == bobID)
        #expect(token["token_type"] as? String == "bearer")
        #expect(token["expires_in"] as? Int == 3600)
        #expect(token["scopes"] as? [String] == ["public_profile", "user_friends"])
        #expect((token["access_token"] as? String)?.hasPrefix("EAA") == true)

        // The admin API's checks, with its words.
        let unknown = try await CLIProcess.run(
            ["tokens", "mint", "--app", appID, "--user", "bob@example.com", "--scope", "not_a_permission"] + local)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "gatehouse: unknown permission not_a_permission\n")
        let short = try await CLIProcess.run(
            ["tokens", "mint", "--app", appID, "--user", bobID, "--expires-in", "5"] + local)
        #expect(short.status == 1)
        #expect(short.stderr.hasPrefix("gatehouse: expires_in must be"), "\(short.stderr)")
        let nobody = try await CLIProcess.run(
            ["tokens", "mint", "--app", appID, "--user", "nobody@example.com"] + local)
        #expect(nobody.stderr == "gatehouse: no user nobody@example.com\n")
        let neither = try await CLIProcess.run(["tokens", "revoke-all"] + local)
        #expect(neither.status != 0)
        #expect(neither.stderr.contains("name --app, --user or both"))

        let listed = try await CLIProcess.run(["tokens", "list", "--app", appID] + local)
        #expect(listed.stdout.contains("  app \(appID)  person \(bobID)  admin_api  expires "), "\(listed.stdout)")
        #expect(listed.stdout.hasSuffix("  [public_profile,user_friends]\n"))
        let all = try await CLIProcess.run(["tokens", "revoke-all", "--user", "bob@example.com"] + local)
        #expect(all.stdout == "revoked 1 token\n", "\(all.stderr)")
        #expect(try await CLIProcess.run(["tokens", "list"] + local).stdout == "No live tokens.\n")

        // Each change is in the audit log as the command line's, read back through a server on the same folder.
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { server.stop() }
        let reply = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(server.baseURL)/admin/api/v1/audit"), timeout: .seconds(30))
        let body = try await reply.body.collect(upTo: 1 << 20)
        let entries = try #require(
            (try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any])?["data"]
                as? [[String: Any]])
        let tokenEntries = entries.filter { ($0["route"] as? String)?.hasPrefix("/admin/api/v1/tokens") == true }
        #expect(tokenEntries.map { $0["route"] as? String } == ["/admin/api/v1/tokens/revoke", "/admin/api/v1/tokens"])
        #expect(tokenEntries.allSatisfy { ($0["actor"] as? [String: Any])?["kind"] as? String == "cli" })
    }
}
