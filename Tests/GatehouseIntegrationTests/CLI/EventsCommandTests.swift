import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 42 item 5: `gatehouse events` against a running `gatehouse serve`: the stored events one a line or as JSON,
/// filtered, and `--follow` printing what happens after it started.
@Suite(.serialized, .tags(.process)) struct EventsCommandTests {
    @Test func eventsListsFiltersAndFollows() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        defer { server.stop() }
        let seed = try #require(server.seed)
        let person = try #require(seed.users.first)
        let common = ["--data-dir", dir]
        let body = #"{"app_id":"\#(seed.app.id)","person_id":"\#(person.id)"}"#
        #expect(try await EventSinkDeliveryTests.post(server.baseURL + "/admin/api/v1/tokens", body) == 201)

        let plain = try await CLIProcess.run(["events", "--type", "token.issued"] + common)
        #expect(plain.status == 0)
        let lines = plain.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(" token.issued person=\(person.id) app=\(seed.app.id) ") == true)
        #expect(lines.first?.contains(" kind=user origin=admin_api token_id=") == true)

        let json = try await CLIProcess.run(["events", "--type", "admin.write", "--json"] + common)
        let objects = json.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 1)
        #expect(objects.first?["type"] as? String == "admin.write")
        #expect((objects.first?["details"] as? [String: String])?["route"] == "/admin/api/v1/tokens")

        let bad = try await CLIProcess.run(["events", "--type", "token.minted"] + common)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("token.minted is not an event type"))

        // --follow prints the stored events, then each new one as it is stored.
        let follower = try await ServerProcess(arguments: ["events", "--follow", "--type", "token.issued"] + common)
        defer { follower.stop() }
        _ = try await follower.waitFor("origin=admin_api", timeout: 30)
        let second = try #require(seed.users.dropFirst().first)
        let next = #"{"app_id":"\#(seed.app.id)","person_id":"\#(second.id)"}"#
        #expect(try await EventSinkDeliveryTests.post(server.baseURL + "/admin/api/v1/tokens", next) == 201)
        let followed = try await follower.waitFor("token.issued person=\(second.id)", timeout: 30)
        #expect(!followed.contains("admin.write"))
        await follower.stopAndWait()
    }
}
