import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 43: a reset leaves nothing of the test before it that a test could read through the admin API: the event
/// stream shows only the reset itself, the journal and the mail outbox are empty; the audit log keeps its record.
@Suite struct V1StateResetHistoryTests {
    @Test(arguments: ["empty", "seed"])
    func afterAResetTheEventsShowOnlyTheResetAndTheJournalAndMailAreEmpty(_ target: String) async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.v1 { api in
            // The test before: a minted token (two events), a Graph call (a journal entry), an invitation (mail).
            #expect(
                try await api.post("/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
                    .status == .created)
            #expect(try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
            #expect(try await api.post("/invitations", #"{"email":"ann@example.com"}"#).status == .created)
            let before = try await api.get("/events")
            #expect(before.json["data"]?.arrayValue?.map { $0["type"] }.contains("token.issued") == true)
            let journal = try await api.get("/journal")
            #expect(journal.json["data"]?.arrayValue?.isEmpty == false)
            #expect(try await api.get("/mail").json["data"]?.arrayValue?.count == 1)

            let reset = try await api.post("/state/reset", #"{"to":"\#(target)"}"#)
            #expect(reset.status == .ok)

            let events = try await api.get("/events")
            #expect(events.status == .ok)
            let id = try #require(events.json["data"]?[0]?["id"]?.stringValue)
            let follow = try #require(events.json["follow_cursor"]?.stringValue)
            let expected: JSONValue = [
                "data": [
                    [
                        "id": .string(id), "type": "admin.write", "time": "2027-01-15T08:00:00Z", "app_id": .null,
                        "person_id": .null, "node": .string(EventLog.nodeName(server.services.configuration)),
                        "details": [
                            "actor_kind": "development", "method": "POST", "route": "/admin/api/v1/state/reset",
                            "status": "200",
                        ],
                    ]
                ],
                "next_cursor": .null, "follow_cursor": .string(follow),
            ]
            #expect(events.text == expected.serialized())
            // Positions keep counting: a follower's cursor from before the reset finds the reset next.
            let earlier = try #require(before.json["follow_cursor"]?.stringValue)
            #expect(Int(follow.dropFirst())! > Int(earlier.dropFirst())!)
            #expect(try await api.get("/events?cursor=\(earlier)").text == expected.serialized())

            let latest = try #require(journal.json["latest"]?.intValue)
            let capacity = try #require(journal.json["capacity"]?.intValue)
            #expect(
                try await api.get("/journal").text
                    == #"{"enabled":true,"latest":\#(latest),"capacity":\#(capacity),"data":[]}"#)
            #expect(try await api.get("/mail").text == #"{"data":[],"next_cursor":null}"#)

            // The audit log is the operators' record of who changed what: it keeps the reset and what came before.
            let audit = try await api.get("/audit")
            #expect(
                audit.json["data"]?.arrayValue?.compactMap { $0["route"]?.stringValue } == [
                    "/admin/api/v1/state/reset", "/admin/api/v1/invitations", "/admin/api/v1/tokens",
                ])
        }
    }
}
