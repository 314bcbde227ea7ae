import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 1: `POST /{u1}/friends/{u2}` connects only two test users of the calling app, with that
/// app's token or u1's own token for it. Friendships are global, so anything looser lets a token befriend a real
/// person and then read their friends-only posts.
@Suite struct FriendshipForgeryTests {
    static let refusal: JSONValue = .object([
        "error": .object([
            "message": "(#2902) Both users must be test users of this app", "type": "OAuthException", "code": 2902,
        ])
    ])

    /// A real person (not a test user) who uses the app, and their app-scoped id.
    static func carol(_ server: TestServer) async throws -> (UserRecord, String) {
        let carol = try await server.services.accounts.createUser(
            NewUser(
                email: "carol@example.com", password: "carol-password", firstName: "Carol", lastName: "Cole"))
        _ = try await server.token(for: carol)
        return (carol, try await server.services.storage.users.scopedID(appID: server.app.id, userID: carol.id))
    }

    /// A test user of the server's app: (scoped id, user token).
    static func testUser(_ server: TestServer, _ client: any TestClientProtocol) async throws -> (String, String) {
        let created = try await client.execute(
            uri: "/\(server.app.id)/accounts/test-users?installed=true&access_token=\(server.appToken)", method: .post)
        return (try #require(created.json["id"]?.stringValue), try #require(created.json["access_token"]?.stringValue))
    }

    @Test func aRealUsersTokenCannotBefriendARealVictim() async throws {
        let server = try await TestServer.make()
        let (carol, carolID) = try await Self.carol(server)
        let alice = try await server.token(for: server.alice)
        let aliceID = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(uri: "/\(aliceID)/friends/\(carolID)?access_token=\(alice)", method: .post)
            #expect(r.status == .badRequest)
            #expect(r.json == Self.refusal)
            #expect(try await server.services.storage.friendships.friends(of: carol.id).isEmpty)
        }
    }

    @Test func theAppTokenCannotBefriendRealPeople() async throws {
        let server = try await TestServer.make()
        let (carol, carolID) = try await Self.carol(server)
        let aliceID = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(
                uri: "/\(aliceID)/friends/\(carolID)?access_token=\(server.appToken)", method: .post)
            #expect(r.status == .badRequest)
            #expect(r.json == Self.refusal)
            #expect(try await server.services.storage.friendships.friends(of: carol.id).isEmpty)
        }
    }

    @Test func aTestUserCannotBefriendARealPerson() async throws {
        let server = try await TestServer.make()
        let (carol, carolID) = try await Self.carol(server)
        try await server.run { client in
            let (testID, testToken) = try await Self.testUser(server, client)
            let r = try await client.execute(
                uri: "/\(testID)/friends/\(carolID)?access_token=\(testToken)", method: .post)
            #expect(r.status == .badRequest)
            #expect(r.json == Self.refusal)
            #expect(try await server.services.storage.friendships.friends(of: carol.id).isEmpty)
        }
    }

    @Test func aTestUserOfAnotherAppIsRefused() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(
            name: "Other App", redirectURIs: ["https://other.example/cb"])
        try await server.run { client in
            let (firstID, firstToken) = try await Self.testUser(server, client)
            // A test user of the other app, who also logged in to this one.
            let created = try await client.execute(
                uri: "/\(other.id)/accounts/test-users?access_token=\(other.id)%7C\(other.secret)", method: .post)
            let otherScoped = try #require(created.json["id"]?.stringValue)
            let outsiderID = try #require(
                try await server.services.storage.users.userID(appID: other.id, scopedID: otherScoped))
            let outsider = try #require(try await server.services.storage.users.find(id: outsiderID))
            _ = try await server.token(for: outsider)
            let outsiderHere = try await server.scopedID(outsider)
            let r = try await client.execute(
                uri: "/\(firstID)/friends/\(outsiderHere)?access_token=\(firstToken)", method: .post)
            #expect(r.status == .badRequest)
            #expect(r.json == Self.refusal)
            #expect(try await server.services.storage.friendships.friends(of: outsiderID).isEmpty)
        }
    }
}
