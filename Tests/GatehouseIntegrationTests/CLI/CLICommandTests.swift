import ChildProcesses
import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import Testing
import NIOHTTP1

@Suite(.serialized, .tags(.process)) struct CLICommandTests {
    @Test func appsAndUsersPrintJSONForScripts() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try await CLIProcess.run([
            "apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--redirect-uri",
            "https://shop.example/cb2", "--require-app-secret", "--approve-permission", "user_birthday", "--json",
            "--data-dir", dir,
        ])
        #expect(created.status == 0)
        let app = try #require(created.json as? [String: Any])
        let id = try #require(app["id"] as? String)
        #expect(id.count == 16 && id.allSatisfy(\.isNumber))
        #expect((app["secret"] as? String)?.count == 32)
        #expect((app["client_token"] as? String)?.count == 32)
        #expect(app["redirect_uris"] as? [String] == ["https://shop.example/cb", "https://shop.example/cb2"])
        #expect(app["require_app_secret"] as? Bool == true)
        #expect(app["approved_permissions"] as? [String] == ["user_birthday"])

        let listed = try await CLIProcess.run(["apps", "list", "--json", "--data-dir", dir])
        #expect((listed.json as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        let shown = try await CLIProcess.run(["apps", "show", id, "--json", "--data-dir", dir])
        #expect((shown.json as? [String: Any])?["name"] as? String == "Shop")

        let user = try await CLIProcess.run([
            "users", "create", "--email", "dana@example.com", "--password", "dana-password", "--first-name", "Dana",
            "--last-name", "Doe", "--birthday", "01/02/1999", "--gender", "female", "--location", "Porto, Portugal",
            "--test-user-of", id, "--json", "--data-dir", dir,
        ])
        #expect(user.status == 0)
        let userJSON = try #require(user.json as? [String: Any])
        let userID = try #require(userJSON["id"] as? String)
        #expect(userJSON["name"] as? String == "Dana Doe")
        #expect(userJSON["test_user_of"] as? String == id)
        #expect((userJSON["location"] as? [String: String])?["name"] == "Porto, Portugal")
        #expect((userJSON["location"] as? [String: String])?["id"]?.count == 15)
        #expect(userJSON["password"] == nil && userJSON["password_hash"] == nil)
        let other = try await CLIProcess.run([
            "users", "create", "--email", "eli@example.com", "--password", "eli-password", "--first-name", "Eli",
            "--last-name", "Eng", "--json", "--data-dir", dir,
        ])
        let otherID = try #require((other.json as? [String: Any])?["id"] as? String)
        let friends = try await CLIProcess.run([
            "users", "befriend", userID, "eli@example.com", "--json", "--data-dir", dir,
        ])
        #expect((friends.json as? [String: Any])?["friends"] as? [String] == [userID, otherID])
        let users = try await CLIProcess.run(["users", "list", "--json", "--data-dir", dir])
        #expect((users.json as? [[String: Any]])?.count == 2)

        let updated = try await CLIProcess.run([
            "apps", "update", id, "--add-redirect-uri", "http://127.0.0.1/cb", "--role", "eli@example.com:developer",
            "--json", "--data-dir", dir,
        ])
        #expect(((updated.json as? [String: Any])?["redirect_uris"] as? [String])?.last == "http://127.0.0.1/cb")
        #expect(((updated.json as? [String: Any])?["roles"] as? [[String: String]])?.first?["role"] == "developer")
        #expect((updated.json as? [String: Any])?["require_pkce"] as? Bool == false)

        // "Require PKCE" is set at creation or later, and `apps show` says which.
        let strict = try await CLIProcess.run([
            "apps", "create", "--name", "Kiosk", "--redirect-uri", "https://kiosk.example/cb", "--require-pkce",
            "--json", "--data-dir", dir,
        ])
        let strictID = try #require((strict.json as? [String: Any])?["id"] as? String)
        #expect((strict.json as? [String: Any])?["require_pkce"] as? Bool == true)
        let relaxed = try await CLIProcess.run([
            "apps", "update", strictID, "--require-pkce", "false", "--json", "--data-dir", dir,
        ])
        #expect((relaxed.json as? [String: Any])?["require_pkce"] as? Bool == false)
        let described = try await CLIProcess.run(["apps", "show", id, "--data-dir", dir])
        #expect(described.stdout.contains("  require PKCE:       no\n"))
    }

    @Test func mistakesGetOneClearLineAndExitStatus1() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = try await CLIProcess.run(["apps", "show", "42", "--data-dir", dir])
        #expect(missing.status == 1)
        #expect(missing.stderr == "gatehouse: no app with id 42\n")
        _ = try await CLIProcess.run([
            "users", "create", "--email", "a@example.com", "--password", "secret1", "--first-name", "A", "--last-name",
            "B", "--data-dir", dir,
        ])
        let duplicate = try await CLIProcess.run([
            "users", "create", "--email", "A@example.com", "--password", "secret1", "--first-name", "A", "--last-name",
            "B", "--data-dir", dir,
        ])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("already exists"))
        let badBirthday = try await CLIProcess.run([
            "users", "create", "--email", "c@example.com", "--password", "secret1", "--first-name", "C", "--last-name",
            "D", "--birthday", "1999-01-02", "--data-dir", dir,
        ])
        #expect(badBirthday.status == 1)
        #expect(badBirthday.stderr.contains("MM/DD/YYYY"))
    }

    @Test func serveSeedsDevDataAndSharesTheDatabaseWithTheCLI() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The data directory comes from the environment only; the seed is read from there.
        let server = try await ServedGatehouse.start(dataDirectory: .environment(dir))
        defer { server.stop() }
        let banner = server.output
        let seed = try #require(server.seed)
        let appID = seed.app.id
        #expect(seed.users.count == 3)
        #expect(banner.contains(appID))
        #expect(banner.contains(seed.app.secret))
        #expect(banner.contains(seed.users[0].email))
        let base = seed.server
        #expect(base == server.baseURL)
        let dialogURL = seed.dialogURL
        #expect(banner.contains(dialogURL))
        #expect(dialogURL.hasPrefix(base + "/v27.0/dialog/oauth?client_id=\(appID)"))

        let page = try await HTTPClient.shared.execute(HTTPClientRequest(url: dialogURL), timeout: .seconds(120))
        #expect(page.status.code == 200)
        let cli = try await CLIProcess.run([
            "apps", "create", "--name", "Live", "--redirect-uri", "https://live.example/cb", "--json", "--data-dir",
            dir,
        ])
        let live = try #require(cli.json as? [String: Any])
        let token = "\(live["id"] as! String)%7C\(live["secret"] as! String)"
        let node = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(base)/\(live["id"] as! String)?access_token=\(token)"), timeout: .seconds(120))
        let body = try await node.body.collect(upTo: 1 << 16)
        #expect(String(buffer: body) == #"{"name":"Live","id":"\#(live["id"] as! String)"}"#)

        // The server's caches are on (its service group runs the SQLite change watcher), and a write another
        // process makes to the file reaches them: the renamed app shows within a second or so, not after a restart.
        let metrics = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(base)/metrics"), timeout: .seconds(120))
        #expect(String(buffer: try await metrics.body.collect(upTo: 1 << 20)).contains("\ngatehouse_caches_enabled 1"))
        _ = try await CLIProcess.run(["apps", "update", live["id"] as! String, "--name", "Renamed", "--data-dir", dir])
        var seen = ""
        for _ in 0..<100 where !seen.contains("Renamed") {
            let again = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "\(base)/\(live["id"] as! String)?access_token=\(token)"), timeout: .seconds(120)
            )
            seen = String(buffer: try await again.body.collect(upTo: 1 << 16))
            if !seen.contains("Renamed") { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(seen == #"{"name":"Renamed","id":"\#(live["id"] as! String)"}"#)
        #expect(await server.stopAndWait() == 0)

        // A second start keeps the same demo app and says so again.
        let again = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { again.stop() }
        let banner2 = again.output
        #expect(banner2.contains(appID))
    }
}

@Suite(.tags(.process)) struct FacebookClientInteropTests {
    /// facebook-sdk 3.1.0 (PyPI), unmodified but for its base-URL globals, logs in and reads the Graph API.
    /// Needs python3 with `facebook-sdk` and `requests` (installed by scripts/test); fails when they are missing.
    @Test func pythonFacebookSDKCompletesCodeLoginAndReadsMe() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { server.stop() }
        let base = server.baseURL
        let (output, status) = try await runPython(
            interopScript("facebook_sdk_client.py"), [base, dir + "/dev-seed.json"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("facebook-sdk interop: 22 checks passed"), "\(output)")
    }
}

@Suite(.tags(.process)) struct OIDCDiscoveryInteropTests {
    /// A backend that knows only the discovery URL verifies Gatehouse's id_tokens with joserfc (Python),
    /// an independent JOSE implementation, and refuses forged ones. Needs python3 with `joserfc` and `requests`.
    @Test func independentVerifierWithOnlyTheDiscoveryURL() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { server.stop() }
        let base = server.baseURL
        let (output, status) = try await runPython(
            interopScript("oidc_discovery_verifier.py"), [base, dir + "/dev-seed.json"])
        #expect(output.contains("oidc discovery verifier: 11 checks passed\n"), "\(output)")
        #expect(status == 0, "\(output)")
    }
}
