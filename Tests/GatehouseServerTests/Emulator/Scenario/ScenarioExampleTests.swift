import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The three examples in `docs/scenarios/`, each loaded into an empty server and checked on the wire with the ids
/// and token values the files fix.
@Suite struct ScenarioExampleTests {
    @Test func shopExample() async throws {
        let server = try await ScenarioServer.make()
        let outcome = try await server.apply(example: "shop.yaml")
        #expect(outcome.changes.count == 8)
        let storage = server.services.storage
        let alice = try #require(try await storage.users.find(id: "100000000000101"))
        #expect(alice.testUserOfAppID == "1960000000000001")
        #expect(alice.picture == FileManager.default.contents(atPath: ScenarioFixtures.example("pictures/alice.png")))
        #expect(try await server.services.passwords.verify("alice-shops", hash: alice.passwordHash))
        #expect(try await storage.apps.role(appID: "1960000000000001", userID: alice.id) == .tester)
        #expect(
            try await storage.users.testUsers(appID: "1960000000000001").map(\.email) == [
                "alice@shop.test", "bob@shop.test",
            ])
        let token = "EAAGshopAliceLongLivedToken0000000001"
        try await server.run { client in
            let me = try await client.execute(
                uri: "/me?fields=id,name,email,birthday&access_token=\(token)", method: .get)
            #expect(me.status == .ok)
            // The birthday was declined, so it is left out even though the app asked for it.
            #expect(me.text == #"{"id":"900000000000101","name":"Alice Anders","email":"alice@shop.test"}"#)
            let permissions = try await client.execute(uri: "/me/permissions?access_token=\(token)", method: .get)
            #expect(
                permissions.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","#
                    + #""status":"granted"},{"permission":"user_birthday","status":"declined"}]}"#
            )
            let debug = try await client.execute(
                uri: "/debug_token?input_token=\(token)&access_token=1960000000000001%7Cshop-secret-0123456789abcdef",
                method: .get)
            #expect(debug.json["data"]?["user_id"]?.stringValue == "900000000000101")
            #expect(debug.json["data"]?["expires_at"]?.intValue == 1_805_184_000)
            // Bob never logged in: the app knows him by his fixed app-scoped id only through the app token.
            let bob = try await client.execute(
                uri: "/900000000000102?access_token=1960000000000001%7Cshop-secret-0123456789abcdef", method: .get)
            #expect(bob.text == #"{"name":"Bob Brown","id":"900000000000102"}"#)
        }
    }

    @Test func friendsExample() async throws {
        let server = try await ScenarioServer.make()
        try await server.apply(example: "friends.yaml")
        let ana = "EAAGquestAnaToken00000000000000000001", dan = "EAAGquestDanToken00000000000000000001"
        try await server.run { client in
            let friends = try await client.execute(uri: "/me/friends?access_token=\(ana)", method: .get)
            #expect(friends.status == .ok)
            #expect(
                friends.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                    "900000000000202", "900000000000203",
                ])
            #expect(friends.json["summary"]?["total_count"]?.intValue == 2)
            // Dan's first call meets the injected rate limit, the next one passes; his token never expires.
            let limited = try await client.execute(uri: "/me?access_token=\(dan)", method: .get)
            #expect(limited.status == .forbidden)
            #expect(
                limited.text
                    == #"{"error":{"message":"(#17) User request limit reached","type":"OAuthException","code":17}}"#)
            let me = try await client.execute(uri: "/me?access_token=\(dan)", method: .get)
            #expect(me.text == #"{"name":"Dan Dahl","id":"900000000000204"}"#)
            let danFriends = try await client.execute(uri: "/me/friends?access_token=\(dan)", method: .get)
            #expect(danFriends.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["900000000000203"])
        }
    }

    @Test func publishingExample() async throws {
        let server = try await ScenarioServer.make()
        try await server.apply(example: "publishing.yaml")
        #expect(server.clock.currentOffset == 86400)
        #expect(try await server.services.storage.emulator.setting("clock_offset_seconds") == "86400")
        let grant = try #require(
            try await server.services.storage.grants.find(appID: "1960000000000003", userID: "100000000000301"))
        #expect(grant.defaultAudience == .friends)
        // Grants and tokens start at the scenario's time, a day ahead of the real one.
        #expect(grant.lastLoginAt == ScenarioServer.start.addingTimeInterval(86400))
        let pia = "EAAGposterPiaToken0000000000000000001", max = "EAAGposterMaxToken0000000000000000001"
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        try await server.run { client in
            let posted = try await client.execute(
                uri: "/me/feed?access_token=\(pia)", method: .post, headers: form,
                body: ByteBuffer(string: "message=Hello&privacy=%7B%22value%22%3A%22EVERYONE%22%7D"))
            #expect(posted.status == .ok)
            let id = try #require(posted.json["id"]?.stringValue)
            #expect(id.hasPrefix("900000000000301_"))
            // Pia chose "friends" on the publish step, so a public post is narrowed to her friends.
            let post = try await client.execute(uri: "/\(id)?fields=message,privacy&access_token=\(pia)", method: .get)
            #expect(post.json["message"]?.stringValue == "Hello")
            #expect(post.json["privacy"]?["value"]?.stringValue == "ALL_FRIENDS")
            let refused = try await client.execute(
                uri: "/me/feed?access_token=\(max)", method: .post, headers: form,
                body: ByteBuffer(string: "message=Hi"))
            #expect(refused.status == .forbidden)
            #expect(refused.json["error"]?["code"]?.intValue == 200)
            let permissions = try await client.execute(uri: "/me/permissions?access_token=\(max)", method: .get)
            #expect(
                permissions.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"publish_actions","status":"declined"}]}"#
            )
        }
    }
}
