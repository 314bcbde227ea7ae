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

/// The JSON admin API behind `gatehouse clock`, `gatehouse inject`, `export` and `import`.
@Suite struct AdminAPITests {
    static let json: HTTPFields = [.contentType: "application/json"]

    @Test func clockAdvancesExpiresTokensAndResets() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, lifetime: 60 * 86400)
        try await server.run { client in
            let before = try await client.execute(uri: "/admin/api/clock", method: .get)
            #expect(before.status == .ok)
            #expect(before.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(
                before.text
                    == #"{"now":1800000000,"now_iso":"2027-01-15T08:00:00Z","offset_seconds":0,"controllable":true}"#)
            let moved = try await client.execute(
                uri: "/admin/api/clock/advance", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"by":"61d"}"#))
            #expect(
                moved.text
                    == #"{"now":1805270400,"now_iso":"2027-03-17T08:00:00Z","offset_seconds":5270400,"controllable":true}"#
            )
            let me = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(me.status == .badRequest)
            #expect(me.json["error"]?["error_subcode"]?.intValue == 463)
            // The offset is persisted, so a restarted emulator keeps its place in time.
            #expect(try await server.services.storage.emulator.setting("clock_offset_seconds") == "5270400")
            let reset = try await client.execute(
                uri: "/admin/api/clock/reset", method: .post, headers: Self.json, body: ByteBuffer(string: "{}"))
            #expect(reset.json["offset_seconds"]?.intValue == 0)
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
            #expect(try await server.services.storage.emulator.setting("clock_offset_seconds") == nil)
        }
    }

    @Test func clockRejectsBadDurationsAndNonJSON() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let bad = try await client.execute(
                uri: "/admin/api/clock/advance", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"by":"soon"}"#))
            #expect(bad.status == .badRequest)
            #expect(
                bad.text
                    == #"{"error":{"message":"\"by\" must be a duration such as 61d, 12h, 90m or 3600","type":"GatehouseAdminException","code":400}}"#
            )
            let back = try await client.execute(
                uri: "/admin/api/clock/advance", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"by":"-5"}"#))
            #expect(back.status == .badRequest)
            // A cross-site form cannot send JSON, so form posts are refused (no CSRF token needed).
            let form = try await client.execute(
                uri: "/admin/api/clock/advance", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "by=1d"))
            #expect(form.status == .unsupportedMediaType)
            let broken = try await client.execute(
                uri: "/admin/api/clock/advance", method: .post, headers: Self.json, body: ByteBuffer(string: "{"))
            #expect(broken.status == .badRequest)
            #expect(server.clock.currentOffset == 0)
        }
    }

    @Test func injectedErrorsAnswerGraphCallsOnceNTimesOrUntilCleared() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let bobToken = try await server.token(for: server.bob)
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            func inject(_ body: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/admin/api/injections", method: .post, headers: Self.json, body: ByteBuffer(string: body))
            }
            // Once, for a user addressed by app-scoped id.
            let once = try await inject(#"{"target":"user","id":"\#(scoped)","error":"190/460","times":1}"#)
            #expect(once.status == .created)
            #expect(once.json["target_id"]?.stringValue == server.alice.id)
            #expect(once.json["remaining"]?.intValue == 1)
            let failed = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(failed.status == .badRequest)
            #expect(
                failed.text
                    == #"{"error":{"message":"Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.","type":"OAuthException","code":190,"error_subcode":460}}"#
            )
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/me?access_token=\(bobToken)", method: .get).status == .ok)

            // Twice, for one token given by its text.
            _ = try await inject(#"{"target":"token","id":"\#(token)","error":"user-rate-limit","times":2}"#)
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
            let forever = try await inject(#"{"target":"app","id":"\#(server.app.id)","error":"2"}"#)
            #expect(forever.json["remaining"] == .null)
            for t in [token, bobToken, token] {
                let r = try await client.execute(uri: "/me?access_token=\(t)", method: .get)
                #expect(r.status == .internalServerError)
                #expect(r.json["error"]?["is_transient"]?.boolValue == true)
            }
            let list = try await client.execute(uri: "/admin/api/injections", method: .get)
            #expect(list.json["data"]?.arrayValue?.count == 1)
            let id = forever.json["id"]?.stringValue ?? ""
            #expect(
                try await client.execute(uri: "/admin/api/injections/\(id)", method: .delete).text
                    == #"{"success":true}"#)
            #expect(try await client.execute(uri: "/admin/api/injections/\(id)", method: .delete).status == .notFound)
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
        try await server.run { client in
            for (spec, code, subcode, status) in expected {
                _ = try await client.execute(
                    uri: "/admin/api/injections", method: .post, headers: Self.json,
                    body: ByteBuffer(string: #"{"target":"app","id":"\#(server.app.id)","error":"\#(spec)","times":1}"#)
                )
                let r = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
                #expect(r.status.code == status, "\(spec)")
                #expect(r.json["error"]?["code"]?.intValue == Int64(code), "\(spec)")
                #expect(r.json["error"]?["error_subcode"]?.intValue == subcode.map(Int64.init), "\(spec)")
            }
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test func injectionRequestsAreValidated() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let cases: [(String, String)] = [
                (
                    #"{"target":"user","id":"nobody","error":"190/460"}"#,
                    #"{"error":{"message":"no user nobody to inject into","type":"GatehouseAdminException","code":400}}"#
                ),
                (
                    #"{"target":"planet","id":"x","error":"2"}"#,
                    #"{"error":{"message":"\"target\" must be user, app or token","type":"GatehouseAdminException","code":400}}"#
                ),
                (
                    #"{"target":"app","id":"\#(server.app.id)","error":"2","times":0}"#,
                    #"{"error":{"message":"times must be a whole number from 1 to 1000000, or omitted for until cleared","type":"GatehouseAdminException","code":400}}"#
                ),
            ]
            for (body, reply) in cases {
                let r = try await client.execute(
                    uri: "/admin/api/injections", method: .post, headers: Self.json, body: ByteBuffer(string: body))
                #expect(r.status == .badRequest)
                #expect(r.text == reply)
            }
            let unknown = try await client.execute(
                uri: "/admin/api/injections", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"target":"app","id":"\#(server.app.id)","error":"999"}"#))
            #expect(
                unknown.json["error"]?["message"]?.stringValue?.hasPrefix(
                    "unknown error \"999\"; use one of 190/460 (password-changed)") == true)
        }
    }

    @Test func exportThenImportKeepsIdsTokensAndKeys() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        let scoped = try await server.scopedID(server.alice)
        try await server.services.storage.apps.setRole(appID: server.app.id, userID: server.bob.id, role: .developer)
        _ = try await server.services.keyRing.activeKey()
        let box = ExportBox()
        try await server.run { client in
            let r = try await client.execute(uri: "/admin/api/export", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentDisposition] == "attachment; filename=\"gatehouse-state.json\"")
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
        try await other.run { client in
            let imported = try await client.execute(
                uri: "/admin/api/import", method: .post, headers: Self.json, body: ByteBuffer(data: exported))
            #expect(imported.status == .ok)
            #expect(imported.text == #"{"success":true,"apps":1,"users":2,"tokens":1}"#)
            let me = try await client.execute(uri: "/me?fields=id,email&access_token=\(token)", method: .get)
            #expect(me.text == #"{"id":"\#(scoped)","email":"alice@example.com"}"#)
            #expect(try await other.services.storage.apps.find(id: other.app.id) == nil)
            #expect(
                try await other.services.storage.apps.role(appID: server.app.id, userID: server.bob.id) == .developer)
            let bad = try await client.execute(
                uri: "/admin/api/import", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"format":"something-else"}"#))
            #expect(bad.status == .badRequest)
            #expect(bad.json["error"]?["message"]?.stringValue?.hasPrefix("not a Gatehouse export") == true)
            // A refused import changed nothing.
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)
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
