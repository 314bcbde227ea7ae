import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 41 item 2: Facebook's `method=` parameter on `GET` as on `POST`, so a client that can send only `GET`
/// (JSONP, old libraries, proxies) can create, befriend and delete; anything but post, delete and get is refused
/// with Facebook's error.
@Suite struct GraphMethodParameterTests {
    static func unsupported(_ method: String, _ id: String) -> String {
        "Unsupported \(method) request. Object with ID '\(id)' does not exist, cannot be loaded due to missing "
            + "permissions, or does not support this operation. Please read the Graph API documentation at "
            + "https://developers.facebook.com/docs/graph-api"
    }

    /// A test user made by a GET with `method=post`, who lets the app see their friends: (id, token).
    static func testUser(_ server: TestServer, _ client: some TestClientProtocol) async throws -> (String, String) {
        let created = try await client.execute(
            uri: "/\(server.app.id)/accounts/test-users?method=post&installed=true&permissions=user_friends"
                + "&access_token=\(server.appToken)", method: .get)
        return (try #require(created.json["id"]?.stringValue), try #require(created.json["access_token"]?.stringValue))
    }

    @Test func getWithMethodPostCreatesATestUser() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let list = "/v21.0/\(server.app.id)/accounts/test-users?access_token=\(server.appToken)"
            let before = try await client.execute(uri: list, method: .get)
            let count = try #require(before.json["data"]?.arrayValue).count
            let created = try await client.execute(
                uri: "/v21.0/\(server.app.id)/accounts/test-users?method=post&installed=true&permissions=email"
                    + "&access_token=\(server.appToken)", method: .get)
            #expect(created.status == .ok)
            let id = try #require(created.json["id"]?.stringValue)
            let token = try #require(created.json["access_token"]?.stringValue)
            #expect(created.json["data"] == nil)
            let after = try await client.execute(uri: list, method: .get)
            #expect(try #require(after.json["data"]?.arrayValue).count == count + 1)
            // The token works, with the permission asked for.
            let permissions = try await client.execute(uri: "/v21.0/me/permissions?access_token=\(token)", method: .get)
            #expect(
                permissions.json["data"]?.arrayValue?.contains(["permission": "email", "status": "granted"]) == true)
            let me = try await client.execute(uri: "/v21.0/me?fields=id&access_token=\(token)", method: .get)
            #expect(me.json == ["id": .string(id)])
        }
    }

    @Test func getWithMethodDeleteDeletesATestUserAndMethodPostBefriendsTwo() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (first, firstToken) = try await Self.testUser(server, client)
            let (second, _) = try await Self.testUser(server, client)
            let befriend = try await client.execute(
                uri: "/v21.0/\(first)/friends/\(second)?method=POST&access_token=\(server.appToken)", method: .get)
            #expect(befriend.status == .ok)
            #expect(befriend.json == ["success": true])
            let friends = try await client.execute(
                uri: "/v21.0/me/friends?access_token=\(firstToken)", method: .get)
            #expect(friends.json["data"]?.arrayValue?.map { $0["id"] } == [.string(second)])

            let deleted = try await client.execute(
                uri: "/v21.0/\(first)?method=delete&access_token=\(server.appToken)", method: .get)
            #expect(deleted.status == .ok)
            #expect(deleted.json == ["success": true])
            let gone = try await client.execute(uri: "/v21.0/me?access_token=\(firstToken)", method: .get)
            #expect(gone.json["error"]?["code"]?.intValue == 190)
        }
    }

    @Test func anUnknownMethodIsRefusedWithFacebooksError() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            for (method, uri) in [
                (HTTPRequest.Method.get, "/v21.0/me?method=put&access_token=\(token)"),
                (.post, "/v21.0/me?method=Put&access_token=\(token)"),
            ] {
                let r = try await client.execute(uri: uri, method: method)
                #expect(r.status == .badRequest)
                #expect(r.json["error"]?["message"]?.stringValue == Self.unsupported("put", "me"))
                #expect(r.json["error"]?["type"] == "GraphMethodException")
                #expect(r.json["error"]?["code"] == 100)
                #expect(r.json["error"]?["error_subcode"] == 33)
            }
            // `method=get` is the GET it already is.
            let get = try await client.execute(
                uri: "/v21.0/me?fields=id,name&method=get&access_token=\(token)", method: .get)
            #expect(get.json == ["id": .string(try await server.scopedID(server.alice)), "name": "Alice Anders"])
            // Without the override a GET of a POST-only edge is refused as before.
            let (first, _) = try await FriendshipForgeryTests.testUser(server, client)
            let (second, _) = try await FriendshipForgeryTests.testUser(server, client)
            let plain = try await client.execute(
                uri: "/v21.0/\(first)/friends/\(second)?access_token=\(server.appToken)", method: .get)
            #expect(plain.status == .badRequest)
            #expect(plain.json["error"]?["error_subcode"] == 33)
        }
    }

    @Test func theTokenCacheRefusesAnUnknownMethodInItsOwnShape() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let r = try await client.execute(
                uri: "/v21.0/\(server.app.id)/token_cache?method=patch&access_token=\(server.appToken)", method: .get)
            #expect(r.status == .methodNotAllowed)
            #expect(r.json == ["status": false, "errorCode": 50003, "errorMessage": "Unsupported method: PATCH"])
        }
    }
}
