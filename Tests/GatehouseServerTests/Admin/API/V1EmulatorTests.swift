import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `/admin/api/v1/clock`, `/injections` and `/journal`: exact answers, problem documents for errors.
@Suite struct V1EmulatorTests {
    @Test func clockAdvancesAndResets() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            #expect(
                try await api.get("/clock").text
                    == #"{"now":1800000000,"now_iso":"2027-01-15T08:00:00Z","offset_seconds":0,"controllable":true}"#)
            let moved = try await api.post("/clock/advance", #"{"by":"61d"}"#)
            #expect(
                moved.text
                    == #"{"now":1805270400,"now_iso":"2027-03-17T08:00:00Z","offset_seconds":5270400,"controllable":true}"#
            )
            let bad = try await api.post("/clock/advance", #"{"by":"soon"}"#)
            #expect(bad.text == V1Problem.validation("by", "\"by\" must be a duration such as 61d, 12h, 90m or 3600"))
            #expect(server.clock.currentOffset == 5_270_400)
            // Found by schemathesis: 7.3e98 seconds crashed the server; past 100 years is refused, nothing moves.
            for huge in [#"{"by":7.266146446202779e+98}"#, #"{"by":"36525d"}"#, #"{"by":1e308}"#] {
                let tooFar = try await api.post("/clock/advance", huge)
                #expect(tooFar.status == .badRequest)
                #expect(
                    tooFar.text == V1Problem.validation("by", "the clock moves at most 100 years ahead of real time"))
            }
            #expect(server.clock.currentOffset == 5_270_400)
            #expect(try await api.get("/clock").json["offset_seconds"] == 5_270_400)
            #expect(try await api.post("/clock/reset").json["offset_seconds"] == 0)
            // The retired path moves nothing and names this one.
            let old = try await api.client.execute(uri: "/admin/api/clock", method: .get)
            #expect(old.status == .gone)
            #expect(old.json["replacement"] == "/admin/api/v1/clock")
        }
    }

    @Test func injectionsAreAddedListedAndCleared() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.v1 { api in
            let added = try await api.post(
                "/injections", #"{"target":"user","id":"\#(server.alice.id)","error":"190/460","times":1}"#)
            #expect(added.status == .created)
            let id = added.json["id"]?.stringValue ?? ""
            #expect(try await api.get("/injections").json["data"]?.arrayValue?.count == 1)
            let me = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.json["error"]?["error_subcode"]?.intValue == 460)
            let unknown = try await api.post(
                "/injections", #"{"target":"user","id":"\#(server.alice.id)","error":"999"}"#)
            #expect(unknown.status == .badRequest)
            #expect(unknown.json["field"] == "error")
            let badTarget = try await api.post("/injections", #"{"target":"planet","id":"x","error":"2"}"#)
            #expect(badTarget.text == V1Problem.validation("target", "\"target\" must be user, app or token"))
            #expect(try await api.get("/injections").json["data"]?.arrayValue?.count == 0)
            #expect(try await api.delete("/injections/\(id)").text == V1Problem.notFound("there is no injection \(id)"))
            _ = try await api.post("/injections", #"{"target":"app","id":"\#(server.app.id)","error":"4"}"#)
            #expect(try await api.delete("/injections").status == .noContent)
            #expect(try await api.get("/injections").text == #"{"data":[]}"#)
        }
    }

    @Test func catalogueListsEveryInjectableError() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let catalogue = try await api.get("/injections/catalogue")
            #expect(catalogue.status == .ok)
            #expect(
                catalogue.json["data"]?.arrayValue?.compactMap { $0["error"]?.stringValue }
                    == InjectableError.allCases.map(\.rawValue))
            #expect(
                catalogue.json["data"]?[0] == [
                    "error": "190/460", "name": "password-changed",
                    "title": "190/460 · session invalidated (password changed)",
                ])
        }
    }

    @Test func journalListsAndShowsEntries() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            _ = try await api.client.execute(uri: "/v27.0/me?access_token=nonsense", method: .get)
            let listed = try await api.get("/journal?status=4xx")
            #expect(listed.status == .ok)
            let seq = listed.json["data"]?[0]?["seq"]?.intValue ?? -1
            #expect(listed.json["data"]?[0]?["route"] == "/v27.0/me")
            let entry = try await api.get("/journal/\(seq)")
            #expect(entry.json["seq"] == .int(seq))
            #expect(entry.json["parts"] == [])
            #expect(
                try await api.get("/journal/999999").text
                    == V1Problem.notFound(
                        "no journal entry with that number on this node (it may have been overwritten)"))
        }
    }
}
