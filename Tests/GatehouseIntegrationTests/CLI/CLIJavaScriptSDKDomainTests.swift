import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Issue 33: an app's "Allowed Domains for the JavaScript SDK" from the command line, on the local database and
/// through a production server's admin API (`--server`).
@Suite(.serialized, .tags(.process)) struct CLIJavaScriptSDKDomainTests {
    @Test func theLocalDatabaseKeepsTheDomains() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try await CLIProcess.run([
            "apps", "create", "--name", "Shop", "--js-sdk-domain", "https://shop.example", "--json", "--data-dir", dir,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require((created.json as? [String: Any])?["id"] as? String)
        #expect((created.json as? [String: Any])?["js_sdk_domains"] as? [String] == ["https://shop.example"])

        let updated = try await CLIProcess.run([
            "apps", "update", id, "--add-js-sdk-domain", "http://localhost:3000", "--remove-js-sdk-domain",
            "https://shop.example", "--json", "--data-dir", dir,
        ])
        #expect((updated.json as? [String: Any])?["js_sdk_domains"] as? [String] == ["http://localhost:3000"])
        let shown = try await CLIProcess.run(["apps", "show", id, "--data-dir", dir])
        #expect(shown.stdout.contains("  JS SDK domains:     http://localhost:3000\n"))

        let bad = try await CLIProcess.run([
            "apps", "update", id, "--add-js-sdk-domain", "shop.example", "--data-dir", dir,
        ])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("JavaScript SDK domain \"shop.example\" must be an http or https URL"))
    }

    @Test func theServersAdminAPIKeepsTheDomains() async throws {
        let p = try await RemoteCLITests.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]
        let created = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--js-sdk-domain", "https://shop.example", "--json"] + remote)
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require((created.json as? [String: Any])?["id"] as? String)
        let updated = try await CLIProcess.run(
            ["apps", "update", id, "--add-js-sdk-domain", "https://www.shop.example", "--json"] + remote)
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(
            (updated.json as? [String: Any])?["js_sdk_domains"] as? [String] == [
                "https://shop.example", "https://www.shop.example",
            ])
        let shown = try await CLIProcess.run(["apps", "show", id] + remote)
        #expect(
            shown.stdout.contains(
                "  JS SDK domains:     https://shop.example\n                      https://www.shop.example\n"))
    }
}
