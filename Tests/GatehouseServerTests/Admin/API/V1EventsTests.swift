import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 42 item 5: `GET /admin/api/v1/events`, the event stream: exact events, filters, paging and long polling.
@Suite struct V1EventsTests {
    @Test func aMintedTokenIsAnEventWithItsAdminWriteAndFiltersPickEither() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let minted = try await api.post(
                "/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
            #expect(minted.status == .created)
            let token = try #require(minted.json["access_token"]?.stringValue)

            let issued = try await api.get("/events?type=token.issued")
            #expect(issued.status == .ok)
            let event = try #require(issued.json["data"]?.arrayValue?.first?.objectValue)
            #expect(issued.json["data"]?.arrayValue?.count == 1)
            #expect(event.keys == ["id", "type", "time", "app_id", "person_id", "node", "details"])
            #expect(event["type"] == "token.issued")
            #expect(event["time"] == "2027-01-15T08:00:00Z")
            #expect(event["app_id"] == .string(server.app.id))
            #expect(event["person_id"] == .string(server.alice.id))
            #expect(event["details"]?["kind"] == "user")
            #expect(event["details"]?["origin"] == "admin_api")
            #expect(event["details"]?["expires_at"] != nil)
            #expect(issued.json["next_cursor"] == .null)
            #expect(!issued.text.contains(token))

            let write = try await api.get("/events?type=admin.write")
            let audit = try #require(write.json["data"]?.arrayValue?.first?.objectValue)
            #expect(
                audit["details"] == [
                    "actor_kind": "development", "method": "POST", "route": "/admin/api/v1/tokens", "status": "201",
                ])
            let both = try await api.get("/events?type=admin.write,token.issued&person=\(server.alice.id)")
            #expect(both.json["data"]?.arrayValue?.map { $0["type"] } == ["token.issued"])
            let byApp = try await api.get("/events?app=\(server.app.id)&type=token.issued&type=admin.write")
            #expect(byApp.json["data"]?.arrayValue?.count == 1)
            let none = try await api.get("/events?since=2027-01-15T08:00:01Z")
            #expect(none.json["data"] == .array([]))
            #expect(none.json["follow_cursor"] != nil)
        }
    }

    @Test func pagesFollowTheCursorAndAWaitEndsWhenAnEventComes() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            for _ in 0..<3 {
                _ = try await api.post("/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
            }
            let first = try await api.get("/events?type=token.issued&limit=2")
            #expect(first.json["data"]?.arrayValue?.count == 2)
            let next = try #require(first.json["next_cursor"]?.stringValue)
            #expect(next.hasPrefix("e"))
            let second = try await api.get("/events?type=token.issued&limit=2&cursor=\(next)")
            #expect(second.json["data"]?.arrayValue?.count == 1)
            #expect(second.json["next_cursor"] == .null)
            let follow = try #require(second.json["follow_cursor"]?.stringValue)

            // Nothing new of the type: the wait ends empty.
            let started = ContinuousClock.now
            let quiet = try await api.get("/events?type=token.issued&cursor=\(follow)&wait=1")
            #expect(ContinuousClock.now - started >= .milliseconds(900))
            #expect(quiet.json["data"] == .array([]))
            // It moves past the events that did not match (the admin writes), never back.
            let quietFollow = try #require(quiet.json["follow_cursor"]?.stringValue)
            #expect(Int(quietFollow.dropFirst())! >= Int(follow.dropFirst())!)

            // An event that comes during the wait ends it at once.
            async let waiting = api.get("/events?type=token.issued&cursor=\(quietFollow)&wait=20")
            try await Task.sleep(for: .milliseconds(300))
            _ = try await api.post("/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
            let woke = try await waiting
            #expect(woke.json["data"]?.arrayValue?.count == 1)
            #expect(ContinuousClock.now - started < .seconds(15))
        }
    }

    @Test func badParametersAreValidationProblems() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api async throws in
            #expect(
                try await api.get("/events?type=token.minted").text
                    == V1Problem.validation("type", "token.minted is not an event type"))
            #expect(
                try await api.get("/events?cursor=o12").text
                    == V1Problem.validation("cursor", "the cursor is not one this server gave out"))
            #expect(
                try await api.get("/events?wait=31").text
                    == V1Problem.validation("wait", "wait must be a whole number of seconds from 0 to 30"))
            #expect(
                try await api.get("/events?since=yesterday").text
                    == V1Problem.validation("since", "since must be an RFC 3339 time such as 2026-01-31T12:00:00Z"))
            #expect(try await api.get("/events?limit=0").status == .badRequest)
        }
    }
}
