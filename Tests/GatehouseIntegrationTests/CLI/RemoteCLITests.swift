import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Issue 28, items 2 and 3: `gatehouse admin token` and the management commands as clients of a production
/// server's admin API (`--server` with `--admin-token` or `GATEHOUSE_ADMIN_TOKEN`), run as the real binary
/// against a real `gatehouse serve --mode production` child.
@Suite(.serialized, .tags(.process)) struct RemoteCLITests {
    /// A production server over a fresh data folder with one read-write and one read-only admin token.
    struct Production {
        let dir: String
        let base: String
        let server: ServedGatehouse
        let token: String
        let readOnly: String
    }

    /// - Parameter serveOptions: more `gatehouse serve` options (the contract test allows state replacement).
    static func startProduction(serveOptions: [String] = []) async throws -> Production {
        let dir = try CLIProcess.temporaryDirectory()
        let made = try await CLIProcess.run(["admin", "token", "create", "--name", "ci", "--json", "--data-dir", dir])
        #expect(made.status == 0, "\(made.stderr)")
        let token = try #require((made.json as? [String: Any])?["token"] as? String)
        let watcher = try await CLIProcess.run([
            "admin", "token", "create", "--name", "dashboard", "--read-only", "--data-dir", dir,
        ])
        #expect(watcher.stdout.contains("Copy it now; it is not shown again:"))
        let readOnly = try #require(
            watcher.stdout.split(separator: " ").first { $0.hasPrefix("gha_") }.map { String($0.prefix(47)) })
        // The banner names the public URL, not the port it listens on: that is picked here.
        let server = try await ServedGatehouse.start(
            ["--mode", "production", "--public-url", "https://login.example.com", "--trusted-proxy", "127.0.0.1"]
                + serveOptions,
            dataDirectory: .given(dir), port: try FreeTCPPort.find())
        return Production(dir: dir, base: server.baseURL, server: server, token: token, readOnly: readOnly)
    }

    @Test func appsListAnswersWithATokenAndTheServerRefusesWithoutOne() async throws {
        let p = try await Self.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base]

        let refused = try await CLIProcess.run(["apps", "list", "--json"] + remote)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "gatehouse: send an admin token (Authorization: Bearer gha_…) or log in at /console/login (pass "
                + "--admin-token or set GATEHOUSE_ADMIN_TOKEN)\n"
        )
        let wrong = try await CLIProcess.run(["apps", "list", "--json", "--admin-token", "gha_wrong"] + remote)
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "gatehouse: the admin token is unknown or revoked (check the admin token)\n")

        let empty = try await CLIProcess.run(["apps", "list", "--json", "--admin-token", p.token] + remote)
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect((empty.json as? [Any])?.isEmpty == true)

        let created = try await CLIProcess.run(
            [
                "apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--approve-permission",
                "user_friends",
                "--json", "--admin-token", p.token,
            ] + remote)
        #expect(created.status == 0, "\(created.stderr)")
        let app = try #require(created.json as? [String: Any])
        let appID = try #require(app["id"] as? String)
        #expect(app["redirect_uris"] as? [String] == ["https://shop.example/cb"])

        // The token from the environment, as CI would pass it.
        let env = ["GATEHOUSE_ADMIN_TOKEN": p.token]
        let listed = try await CLIProcess.run(["apps", "list", "--json"] + remote, environment: env)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect((listed.json as? [[String: Any]])?.map { $0["id"] as? String } == [appID])
        let updated = try await CLIProcess.run(
            [
                "apps", "update", appID, "--add-redirect-uri", "https://shop.example/two", "--require-pkce", "true",
                "--json",
            ] + remote, environment: env)
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(
            (updated.json as? [String: Any])?["redirect_uris"] as? [String] == [
                "https://shop.example/cb", "https://shop.example/two",
            ])
        #expect((updated.json as? [String: Any])?["require_pkce"] as? Bool == true)
        let shown = try await CLIProcess.run(["apps", "show", appID] + remote, environment: env)
        #expect(shown.stdout.contains("require PKCE:       yes"))

        // A read-only token reads, and its writes are refused with the server's reason.
        let read = try await CLIProcess.run(["apps", "list", "--admin-token", p.readOnly] + remote)
        #expect(read.stdout == "\(appID)  Shop  (2 redirect URIs)\n")
        let write = try await CLIProcess.run(
            ["apps", "create", "--name", "Nope", "--admin-token", p.readOnly] + remote)
        #expect(write.status == 1)
        #expect(write.stderr == "gatehouse: this admin token is read-only\n")
    }

    @Test func usersClockInjectLogsAndTokensThroughTheServer() async throws {
        let p = try await Self.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]

        let alice = try await CLIProcess.run(
            [
                "users", "create", "--email", "alice@example.com", "--password", "alice-password", "--first-name",
                "Alice", "--last-name", "Anders", "--location", "Lisbon, Portugal", "--json",
            ] + remote)
        #expect(alice.status == 0, "\(alice.stderr)")
        let bob = try await CLIProcess.run(
            [
                "users", "create", "--email", "bob@example.com", "--password", "bob-password", "--first-name", "Bob",
                "--last-name", "Brown",
            ] + remote)
        #expect(bob.stdout.hasPrefix("Created Bob Brown <bob@example.com> with id "))
        let friends = try await CLIProcess.run(["users", "befriend", "alice@example.com", "bob@example.com"] + remote)
        #expect(friends.stdout == "alice@example.com and bob@example.com are now friends\n", "\(friends.stderr)")
        let people = try await CLIProcess.run(["users", "list", "--json"] + remote)
        let listed = try #require(people.json as? [[String: Any]])
        #expect(listed.map { $0["email"] as? String } == ["alice@example.com", "bob@example.com"])
        #expect((listed.first?["friend_ids"] as? [String])?.count == 1)

        let clock = try await CLIProcess.run(["clock", "--json"] + remote)
        #expect(clock.status == 0, "\(clock.stderr)")
        #expect((clock.json as? [String: Any])?["offset_seconds"] as? Int == 0)
        #expect(try await CLIProcess.run(["clock", "--server", p.base]).status == 1)
        // Production mode keeps error injection off: the server's reason reaches the terminal.
        let inject = try await CLIProcess.run(["inject", "--user", "alice@example.com", "--error", "190/460"] + remote)
        #expect(inject.status == 1)
        #expect(inject.stderr == "gatehouse: error injection is off on this server (production mode)\n")
        let injections = try await CLIProcess.run(["inject", "list", "--json"] + remote)
        #expect(injections.status == 0, "\(injections.stderr)")
        let logs = try await CLIProcess.run(["logs"] + remote)
        #expect(logs.status == 0, "\(logs.stderr)")
        #expect(logs.stderr.contains("the server's request journal is off"))

        // export and scenario check, which always used the older admin routes, now send the token too.
        let exported = try await CLIProcess.run(["export"] + remote)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(((exported.json as? [String: Any])?["users"] as? [Any])?.count == 2)
        #expect(try await CLIProcess.run(["export", "--server", p.base]).status == 1)

        // Admin tokens themselves, through the server: list, make, revoke; the revoked one is refused.
        let made = try await CLIProcess.run(["admin", "token", "create", "--name", "temp", "--json"] + remote)
        let temp = try #require(made.json as? [String: Any])
        let tempID = try #require(temp["id"] as? String), tempToken = try #require(temp["token"] as? String)
        let tokens = try await CLIProcess.run(["admin", "token", "list", "--json"] + remote)
        #expect((tokens.json as? [[String: Any]])?.map { $0["name"] as? String } == ["ci", "dashboard", "temp"])
        #expect(!tokens.stdout.contains(tempToken))
        #expect(try await CLIProcess.run(["apps", "list", "--server", p.base, "--admin-token", tempToken]).status == 0)
        let revoked = try await CLIProcess.run(["admin", "token", "revoke", tempID] + remote)
        #expect(revoked.stdout == "revoked admin token \(tempID)\n", "\(revoked.stderr)")
        #expect(try await CLIProcess.run(["apps", "list", "--server", p.base, "--admin-token", tempToken]).status == 1)
        // The same list from the database on disk, as before.
        let local = try await CLIProcess.run(["admin", "token", "list", "--data-dir", p.dir])
        #expect(local.stdout.contains("temp  revoked "))
    }
}

/// `gatehouse inject --list`, which the README and GatehouseTesting's documentation promise.
@Suite(.tags(.process)) struct InjectListTests {
    @Test func injectListPrintsTheCatalogueWithoutAServer() async throws {
        let listed = try await CLIProcess.run(["inject", "--list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.stdout.split(separator: "\n").first
                == "190/460 password-changed    190/460 · session invalidated (password changed)")
        #expect(listed.stdout.split(separator: "\n").count == 10)
        let json = try await CLIProcess.run(["inject", "--list", "--json"])
        let items = try #require((json.json as? [String: Any])?["data"] as? [[String: Any]])
        #expect(
            items.map { $0["name"] as? String } == [
                "password-changed", "app-removed", "expired", "app-rate-limit", "user-rate-limit", "transient",
                "missing-permission",
                "checkpointed", "unconfirmed", "logged-out",
            ])
        let missing = try await CLIProcess.run(["inject", "--user", "alice@example.com"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "gatehouse: name the error with --error (see `gatehouse inject --list`)\n")
    }
}
