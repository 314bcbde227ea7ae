import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// `gatehouse users state`: the account state from the command line, on the local database and through a
/// production server's admin API (`--server`).
@Suite(.serialized, .tags(.process)) struct CLIAccountStateTests {
    @Test func theLocalDatabaseKeepsTheState() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try await CLIProcess.run([
            "users", "create", "--email", "dana@example.com", "--password", "dana-password", "--first-name", "Dana",
            "--last-name", "Doe", "--json", "--data-dir", dir,
        ])
        let id = try #require((created.json as? [String: Any])?["id"] as? String)
        #expect((created.json as? [String: Any])?["account_state"] as? String == "active")

        let set = try await CLIProcess.run([
            "users", "state", "dana@example.com", "checkpointed", "--json", "--data-dir", dir,
        ])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.json as? [String: String] == ["id": id, "account_state": "checkpointed"])
        let listed = try await CLIProcess.run(["users", "list", "--json", "--data-dir", dir])
        #expect((listed.json as? [[String: Any]])?.first?["account_state"] as? String == "checkpointed")
        let plain = try await CLIProcess.run(["users", "list", "--data-dir", dir])
        #expect(plain.stdout == "\(id)  Dana Doe  <dana@example.com>  [checkpointed]\n")

        let words = try await CLIProcess.run(["users", "state", id, "session-invalidated", "--data-dir", dir])
        #expect(words.stdout == "Dana Doe is now logged out everywhere (190/467): must log in again\n")

        let bad = try await CLIProcess.run(["users", "state", id, "frozen", "--data-dir", dir])
        #expect(bad.status != 0)
        #expect(
            bad.stderr.contains(
                "unknown state \"frozen\"; use one of active, checkpointed, unconfirmed, disabled, logged-out"))
        let nobody = try await CLIProcess.run(["users", "state", "nobody@example.com", "disabled", "--data-dir", dir])
        #expect(nobody.status == 1)
        #expect(nobody.stderr == "gatehouse: no user nobody@example.com\n")
    }

    @Test func theServersAdminAPIKeepsTheState() async throws {
        let p = try await RemoteCLITests.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]
        let created = try await CLIProcess.run(
            [
                "users", "create", "--email", "eli@example.com", "--password", "eli-password", "--first-name", "Eli",
                "--last-name", "Eng", "--json",
            ] + remote)
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require((created.json as? [String: Any])?["id"] as? String)
        let set = try await CLIProcess.run(["users", "state", "eli@example.com", "disabled", "--json"] + remote)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.json as? [String: String] == ["id": id, "account_state": "disabled"])
        let listed = try await CLIProcess.run(["users", "list", "--json"] + remote)
        #expect((listed.json as? [[String: Any]])?.first?["account_state"] as? String == "disabled")
    }
}
