import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

@Suite struct DebugTokenTests {
    @Test func validUserTokenHasFacebooksShape() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(
                uri: "/v27.0/debug_token?input_token=\(token)&access_token=\(server.appToken)", method: .get)
            #expect(r.status == .ok)
            let d = try #require(r.json["data"])
            #expect(d["app_id"] == .string(server.app.id))
            #expect(d["user_id"] == .string(scoped))
            #expect(d["type"] == "USER")
            #expect(d["application"] == "Test App")
            #expect(d["is_valid"] == true)
            #expect(d["issued_at"]?.intValue == 1_800_000_000)
            #expect(d["expires_at"]?.intValue == Int64(1_800_000_000 + 5_184_000))
            #expect(d["data_access_expires_at"]?.intValue == Int64(1_800_000_000 + 90 * 86400))
            #expect(d["scopes"] == ["public_profile", "email"])
            #expect(d["granular_scopes"] == [["scope": "email"]])
            #expect(d["metadata"]?["sso"] != nil)
            #expect(d["error"] == nil)
        }
    }

    @Test func knownButInvalidTokensStillAnswer200() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, lifetime: 10)
        server.clock.advance(by: 11)
        try await server.run { client in
            let r = try await client.execute(
                uri: "/debug_token?input_token=\(token)&access_token=\(server.appToken)", method: .get)
            #expect(r.status == .ok)
            let d = try #require(r.json["data"])
            #expect(d["is_valid"] == false)
            #expect(d["app_id"] == .string(server.app.id))
            #expect(d["error"]?["code"]?.intValue == 190)
            #expect(d["error"]?["subcode"]?.intValue == 463)
            #expect(
                d["error"]?["message"]?.stringValue?.hasPrefix("Error validating access token: Session has expired on")
                    == true)
            #expect(d["scopes"] == [])
        }
    }

    @Test func garbageAndAppTokens() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let garbage = try await client.execute(
                uri: "/debug_token?input_token=nonsense&access_token=\(server.appToken)", method: .get)
            #expect(garbage.status == .ok)
            #expect(
                garbage.text
                    == #"{"data":{"error":{"code":190,"message":"Invalid OAuth access token - Cannot parse access "#
                    + #"token"},"is_valid":false,"scopes":[]}}"#
            )
            let app = try await client.execute(
                uri: "/debug_token?input_token=\(server.appToken)&access_token=\(server.appToken)", method: .get)
            #expect(app.json["data"]?["type"] == "APP")
            #expect(app.json["data"]?["app_id"] == .string(server.app.id))
            #expect(app.json["data"]?["scopes"] == [])
            let badCaller = try await client.execute(
                uri: "/debug_token?input_token=x&access_token=\(server.app.id)%7Cwrong", method: .get)
            #expect(badCaller.status == .badRequest)
            #expect(badCaller.json["error"]?["code"]?.intValue == 190)
            let missing = try await client.execute(uri: "/debug_token?access_token=\(server.appToken)", method: .get)
            #expect(missing.json["error"]?["code"]?.intValue == 100)
        }
    }
}
