import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// `gatehouse users update`, `users delete` and `apps delete`: the admin API's changes and deletions from the command
/// line, through a production server and on the local database, run as the real binary.
@Suite(.serialized, .tags(.process)) struct CLIPeopleAndAppsTests {
    /// A new password through the CLI signs the person out as every other path does (issue 27, finding 6).
    @Test func aPasswordChangedThroughTheServerEndsTheTokensWith460() async throws {
        let p = try await RemoteCLITests.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]
        let app = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json"] + remote)
        let appID = try #require((app.json as? [String: Any])?["id"] as? String)
        _ = try await CLIProcess.run(
            [
                "users", "create", "--email", "erin@example.com", "--password", "erin-password", "--first-name", "Erin",
                "--last-name", "Ek",
            ] + remote)
        let token = try await CLIProcess.run(["tokens", "mint", "--app", appID, "--user", "erin@example.com"] + remote)
            .stdout.trimmingCharacters(in: .newlines)

        let renamed = try await CLIProcess.run(
            ["users", "update", "erin@example.com", "--first-name", "Eri", "--hometown", "Porto, Portugal", "--json"]
                + remote)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let person = try #require(renamed.json as? [String: Any])
        #expect(person["first_name"] as? String == "Eri")
        #expect((person["hometown"] as? [String: Any])?["name"] as? String == "Porto, Portugal")
        #expect(try await CLITokensTests.me(p.base, token).0 == 200)

        let changed = try await CLIProcess.run(
            ["users", "update", "erin@example.com", "--password", "new-password"] + remote)
        #expect(changed.stdout == "Updated Eri Ek <erin@example.com>; signed out everywhere (tokens answer 190/460)\n")
        let (status, me) = try await CLITokensTests.me(p.base, token)
        #expect(status == 400)
        #expect((me["error"] as? [String: Any])?["error_subcode"] as? Int == 460)

        let short = try await CLIProcess.run(["users", "update", "erin@example.com", "--password", "short"] + remote)
        #expect(short.stderr == "gatehouse: password needs at least 6 characters\n")
        let nothing = try await CLIProcess.run(["users", "update", "erin@example.com"] + remote)
        #expect(nothing.stderr == "gatehouse: nothing to change: give --email, --password, a name or a profile field\n")
    }

    /// `users list --app/--test-users/--email` filter as `GET /people` does, on both sides.
    @Test func listsAreFilteredAsTheAPIFiltersThem() async throws {
        let p = try await RemoteCLITests.startProduction()
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let remote = ["--server", p.base, "--admin-token", p.token]
        let local = ["--data-dir", p.dir]
        let app = try await CLIProcess.run(
            ["apps", "create", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json"] + remote)
        let appID = try #require((app.json as? [String: Any])?["id"] as? String)
        for (email, first, testUser) in [("ann@example.com", "Ann", false), ("tess@example.com", "Tess", true)] {
            let made = try await CLIProcess.run(
                [
                    "users", "create", "--email", email, "--password", "long-password", "--first-name", first,
                    "--last-name", "Lane",
                ] + (testUser ? ["--test-user-of", appID] : []) + remote)
            #expect(made.status == 0, "\(made.stderr)")
        }
        _ = try await CLIProcess.run(
            [
                "users", "create", "--email", "gus@example.com", "--password", "long-password", "--first-name", "Gus",
                "--last-name", "Lane",
            ] + remote)
        #expect(
            try await CLIProcess.run(["tokens", "mint", "--app", appID, "--user", "gus@example.com"] + remote).status
                == 0)

        func emails(_ arguments: [String]) async throws -> [String] {
            let listed = try await CLIProcess.run(["users", "list", "--json"] + arguments)
            #expect(listed.status == 0, "\(listed.stderr)")
            return (listed.json as? [[String: Any]])?.compactMap { $0["email"] as? String } ?? []
        }
        for side in [remote, local] {
            #expect(try await emails(side) == ["ann@example.com", "tess@example.com", "gus@example.com"])
            #expect(try await emails(["--app", appID] + side) == ["tess@example.com", "gus@example.com"])
            #expect(try await emails(["--test-users"] + side) == ["tess@example.com"])
            #expect(try await emails(["--app", appID, "--test-users"] + side) == ["tess@example.com"])
            #expect(try await emails(["--email", "Ann@Example.com"] + side) == ["ann@example.com"])
            let unknown = try await CLIProcess.run(["users", "list", "--app", "999"] + side)
            #expect(unknown.status == 1)
            #expect(unknown.stderr == "gatehouse: there is no app 999\n")
        }
    }

    @Test func theLocalDatabaseUpdatesAndClearsFields() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let local = ["--data-dir", dir]
        _ = try await CLIProcess.run(
            [
                "users", "create", "--email", "fay@example.com", "--password", "fay-password", "--first-name", "Fay",
                "--last-name", "Fox", "--hometown", "Porto, Portugal",
            ] + local)
        let cleared = try await CLIProcess.run(
            ["users", "update", "fay@example.com", "--hometown", "", "--email", "fay.fox@example.com", "--json"] + local
        )
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect((cleared.json as? [String: Any])?["hometown"] is NSNull)
        #expect((cleared.json as? [String: Any])?["email"] as? String == "fay.fox@example.com")
        let taken = try await CLIProcess.run(
            [
                "users", "create", "--email", "gil@example.com", "--password", "gil-password", "--first-name", "Gil",
                "--last-name", "Gray",
            ] + local)
        #expect(taken.status == 0)
        let conflict = try await CLIProcess.run(
            ["users", "update", "gil@example.com", "--email", "fay.fox@example.com"] + local)
        #expect(conflict.status == 1)
        #expect(conflict.stderr == "gatehouse: fay.fox@example.com is already someone's email\n")
    }

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
