import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// `gatehouse users delete` and `gatehouse apps delete`: the admin API's deletions from the command line, through a
/// production server and on the local database, run as the real binary.
@Suite(.serialized, .tags(.process)) struct CLIDeleteTests {
    @Test func aPersonAndAnAppAreDeletedThroughTheServer() async throws {
        let p = try await RemoteCLITests.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]
        let app = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json"] + remote)
        let appID = try #require((app.json as? [String: Any])?["id"] as? String)
        let carol = try await CLIProcess.run(
            [
                "users", "create", "--email", "carol@example.com", "--password", "carol-password", "--first-name",
                "Carol", "--last-name", "Cruz", "--json",
            ] + remote)
        let carolID = try #require((carol.json as? [String: Any])?["id"] as? String)
        let token = try await CLIProcess.run(["tokens", "mint", "--app", appID, "--user", carolID] + remote)
            .stdout.trimmingCharacters(in: .newlines)

        let unasked = try await CLIProcess.run(["users", "delete", "carol@example.com"] + remote)
        #expect(unasked.status == 1)
        #expect(unasked.stderr == "gatehouse: deleting carol@example.com cannot be undone: add --yes to delete\n")
        let deleted = try await CLIProcess.run(["users", "delete", "carol@example.com", "--yes", "--json"] + remote)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect((deleted.json as? [String: Any])?["id"] as? String == carolID)
        #expect((deleted.json as? [String: Any])?["deleted"] as? Bool == true)
        // Her token now answers as a deleted person's does.
        let (status, me) = try await CLITokensTests.me(p.base, token)
        #expect(status == 400)
        #expect((me["error"] as? [String: Any])?["error_subcode"] as? Int == 458)
        let again = try await CLIProcess.run(["users", "delete", carolID, "--yes"] + remote)
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("gatehouse: "), "\(again.stderr)")

        let gone = try await CLIProcess.run(["apps", "delete", appID, "--yes"] + remote)
        #expect(gone.stdout == "deleted app \(appID)\n", "\(gone.stderr)")
        #expect((try await CLIProcess.run(["apps", "list", "--json"] + remote).json as? [Any])?.isEmpty == true)
        let readOnly = try await CLIProcess.run(
            ["apps", "delete", appID, "--yes", "--server", p.base, "--admin-token", p.readOnly])
        #expect(readOnly.stderr == "gatehouse: this admin token is read-only\n")
    }

    @Test func theLocalDatabaseDeletesTheSame() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let local = ["--data-dir", dir]
        let app = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json"] + local)
        let appID = try #require((app.json as? [String: Any])?["id"] as? String)
        _ = try await CLIProcess.run(
            [
                "users", "create", "--email", "dan@example.com", "--password", "dan-password", "--first-name", "Dan",
                "--last-name", "Diaz",
            ] + local)
        #expect(
            try await CLIProcess.run(["tokens", "mint", "--app", appID, "--user", "dan@example.com"] + local).status
                == 0)

        let deleted = try await CLIProcess.run(["users", "delete", "dan@example.com", "--yes"] + local)
        #expect(deleted.stdout.hasPrefix("deleted dan@example.com (id "), "\(deleted.stderr)")
        #expect((try await CLIProcess.run(["users", "list", "--json"] + local).json as? [Any])?.isEmpty == true)
        #expect(try await CLIProcess.run(["tokens", "list"] + local).stdout == "No live tokens.\n")
        let nobody = try await CLIProcess.run(["users", "delete", "dan@example.com", "--yes"] + local)
        #expect(nobody.stderr == "gatehouse: no user dan@example.com\n")

        #expect(try await CLIProcess.run(["apps", "delete", appID, "--yes"] + local).status == 0)
        let missing = try await CLIProcess.run(["apps", "delete", appID, "--yes"] + local)
        #expect(missing.status == 1)
        #expect(missing.stderr == "gatehouse: no app \(appID)\n")
    }
}
