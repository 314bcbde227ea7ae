import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import NIOFoundationEssentialsCompat

/// What `gatehouse clock`, `inject`, `export` and `import` do through `/admin/api/v1`: the clock moves tokens'
/// lives, injected errors answer Graph calls, and an export imports into another server with the same ids.
@Suite struct V1EmulatorBehaviourTests {
    @Test func clockAdvancesExpiresTokensAndResets() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, lifetime: 60 * 86400)
        try await server.v1 { api in
            let before = try await api.get("/clock")
            #expect(before.status == .ok)
            #expect(before.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(before.headers[.cacheControl] == "no-store")
            #expect(
                before.text
                    == #"{"now":1800000000,"now_iso":"2027-01-15T08:00:00Z","offset_seconds":0,"controllable":true}"#)
            let moved = try await api.post("/clock/advance", #"{"by":"61d"}"#)
            #expect(
                moved.text
                    == #"{"now":1805270400,"now_iso":"2027-03-17T08:00:00Z","offset_seconds":5270400,"controllable":true}"#
            )
            let me = try await api.client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(me.status == .badRequest)
            #expect(me.json["error"]?["error_subcode"]?.intValue == 463)
            // The offset is persisted, so a restarted emulator keeps its place in time.
            #expect(try await server.services.storage.emulator.setting("clock_offset_seconds") == "5270400")
            let reset = try await api.post("/clock/reset")
            #expect(reset.json["offset_seconds"]?.intValue == 0)
            #expect(try await api.client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
            #expect(try await server.services.storage.emulator.setting("clock_offset_seconds") == nil)
        }
    }

    @Test func clockRejectsBadDurationsAndNonJSON() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let bad = try await api.post("/clock/advance", #"{"by":"soon"}"#)
            #expect(bad.status == .badRequest)
            #expect(bad.headers[.contentType] == "application/problem+json")
            #expect(bad.text == V1Problem.validation("by", "\"by\" must be a duration such as 61d, 12h, 90m or 3600"))
            let back = try await api.post("/clock/advance", #"{"by":"-5"}"#)
            #expect(back.status == .badRequest)
            // A cross-site form cannot send JSON, so form posts are refused (no CSRF token needed), bodiless ones too.
            for path in ["/clock/advance", "/clock/reset"] {
                let form = try await api.call(.post, path, "by=1d", contentType: "application/x-www-form-urlencoded")
                #expect(form.status == .unsupportedMediaType)
                #expect(
                    form.text
                        == V1Problem.text(
                            "unsupported-media-type", 415, "Send application/json",
                            "send a JSON body with Content-Type: application/json (even an empty one)"))
            }
            let broken = try await api.post("/clock/advance", "{")
            #expect(broken.text == V1Problem.validation("body", "the body is not valid JSON"))
            #expect(server.clock.currentOffset == 0)
        }
    }

    @Test func injectedErrorsAnswerGraphCallsOnceNTimesOrUntilCleared() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let bobToken = try await server.token(for: server.bob)
        let scoped = try await server.scopedID(server.alice)
        try await server.v1 { api in
            let client = api.client
            // Once, for a user addressed by app-scoped id.
            let once = try await api.post(
                "/injections", #"{"target":"user","id":"\#(scoped)","error":"190/460","times":1}"#)
            #expect(once.status == .created)
            #expect(once.json["target_id"]?.stringValue == server.alice.id)
            #expect(once.json["error"] == "190/460")
            #expect(once.json["code"] == 190)
            #expect(once.json["error_subcode"] == 460)
            #expect(once.json["remaining"]?.intValue == 1)
            let failed = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(failed.status == .badRequest)
            #expect(
                failed.text
                    == #"{"error":{"message":"Error validating access token: The session has been invalidated "#
                    + #"because the user changed their password or Facebook has changed the session for "#
                    + #"security reasons.","type":"OAuthException","code":190,"error_subcode":460}}"#
            )
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/me?access_token=\(bobToken)", method: .get).status == .ok)

            // Twice, for one token given by its text.
            _ = try await api.post(
                "/injections", #"{"target":"token","id":"\#(token)","error":"user-rate-limit","times":2}"#)
            for _ in 0..<2 {
                let limited = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
                #expect(limited.status == .forbidden)
                #expect(
                    limited.text
                        == #"{"error":{"message":"(#17) User request limit reached","type":"OAuthException","code":17}}"#
                )
            }
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)

            // Until cleared, for the whole app.
            let forever = try await api.post("/injections", #"{"target":"app","id":"\#(server.app.id)","error":"2"}"#)
            #expect(forever.json["remaining"] == .null)
            for t in [token, bobToken, token] {
                let r = try await client.execute(uri: "/me?access_token=\(t)", method: .get)
                #expect(r.status == .internalServerError)
                #expect(r.json["error"]?["is_transient"]?.boolValue == true)
            }
            #expect(try await api.get("/injections").json["data"]?.arrayValue?.count == 1)
            let id = forever.json["id"]?.stringValue ?? ""
            let deleted = try await api.delete("/injections/\(id)")
            #expect(deleted.status == .noContent)
            #expect(deleted.text == "")
            #expect(try await api.delete("/injections/\(id)").status == .notFound)
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test func everyInjectableErrorHasFacebooksShape() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let expected: [(String, Int, Int?, Int)] = [
            ("190/460", 190, 460, 400), ("190/458", 190, 458, 400), ("190/463", 190, 463, 400), ("4", 4, nil, 403),
            ("17", 17, nil, 403), ("2", 2, nil, 500), ("200", 200, nil, 403),
        ]
        try await server.v1 { api in
            for (spec, code, subcode, status) in expected {
                let added = try await api.post(
                    "/injections", #"{"target":"app","id":"\#(server.app.id)","error":"\#(spec)","times":1}"#)
                #expect(added.status == .created, "\(spec)")
                let r = try await api.client.execute(uri: "/me?access_token=\(token)", method: .get)
                #expect(r.status.code == status, "\(spec)")
                #expect(r.json["error"]?["code"]?.intValue == Int64(code), "\(spec)")
                #expect(r.json["error"]?["error_subcode"]?.intValue == subcode.map(Int64.init), "\(spec)")
            }
            #expect(try await api.client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test func injectionRequestsAreValidated() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let cases: [(String, String)] = [
                (
                    #"{"target":"user","id":"nobody","error":"190/460"}"#,
                    V1Problem.validation("id", "no user nobody to inject into")
                ),
                (
                    #"{"target":"planet","id":"x","error":"2"}"#,
                    V1Problem.validation("target", "\"target\" must be user, app or token")
                ),
                (#"{"target":"app","error":"2"}"#, V1Problem.validation("id", "\"id\" names the user, app or token")),
                (
                    #"{"target":"app","id":"\#(server.app.id)","error":"2","times":0}"#,
                    V1Problem.validation(
                        "times", "times must be a whole number from 1 to 1000000, or omitted for until cleared")
                ),
            ]
            for (body, reply) in cases {
                let r = try await api.post("/injections", body)
                #expect(r.status == .badRequest)
                #expect(r.text == reply)
            }
            let unknown = try await api.post("/injections", #"{"target":"app","id":"\#(server.app.id)","error":"999"}"#)
            #expect(unknown.json["field"] == "error")
            #expect(
                unknown.json["detail"]?.stringValue?.hasPrefix(
                    "unknown error \"999\"; use one of 190/460 (password-changed)") == true)
            #expect(try await api.get("/injections").text == #"{"data":[]}"#)
        }
    }

    @Test func exportThenImportKeepsIdsTokensAndKeys() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        let scoped = try await server.scopedID(server.alice)
        try await server.services.storage.apps.setRole(appID: server.app.id, userID: server.bob.id, role: .developer)
        _ = try await server.services.keyRing.activeKey()
        let box = ExportBox()
        try await server.v1 { api in
            let r = try await api.get("/state")
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(r.headers[.cacheControl] == "no-store")
            box.data = Data(buffer: r.body)
            #expect(!r.text.contains("alice-password"))
        }
        let exported = box.data
        let state = try StateTransfer.decode(exported)
        #expect(state.apps.map(\.id) == [server.app.id])
        #expect(state.users.count == 2)
        #expect(state.roles == [.init(appID: server.app.id, userID: server.bob.id, role: .developer)])

        // Into a different, fresh server: same ids, same token, same scoped id.
        let other = try await TestServer.make()
        try await other.v1 { api in
            let imported = try await api.put("/state", String(decoding: exported, as: UTF8.self))
            #expect(imported.status == .ok)
            #expect(imported.text == #"{"apps":1,"people":2,"tokens":1}"#)
            let me = try await api.client.execute(uri: "/me?fields=id,email&access_token=\(token)", method: .get)
            #expect(me.text == #"{"id":"\#(scoped)","email":"alice@example.com"}"#)
            #expect(try await other.services.storage.apps.find(id: other.app.id) == nil)
            #expect(
                try await other.services.storage.apps.role(appID: server.app.id, userID: server.bob.id) == .developer)
            let bad = try await api.put("/state", #"{"format":"something-else"}"#)
            #expect(bad.status == .badRequest)
            #expect(bad.json["field"] == "body")
            #expect(bad.json["detail"]?.stringValue?.hasPrefix("not a Gatehouse export") == true)
            // A refused import changed nothing.
            #expect(try await api.client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test func durationsParse() {
        #expect(DurationParser.seconds("61d") == 5_270_400)
        #expect(DurationParser.seconds("2h30m") == 9000)
        #expect(DurationParser.seconds("1w") == 604_800)
        #expect(DurationParser.seconds("3600") == 3600)
        #expect(DurationParser.seconds("90s") == 90)
        #expect(DurationParser.seconds("d") == nil)
        #expect(DurationParser.seconds("5x") == nil)
        #expect(DurationParser.seconds("") == nil)
        #expect(DurationParser.seconds("10d5") == nil)
    }
}

/// Carries bytes out of a `server.run` closure.
final class ExportBox: @unchecked Sendable {
    var data = Data()
}
