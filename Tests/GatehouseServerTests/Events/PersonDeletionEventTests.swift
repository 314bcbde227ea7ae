import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Deleting a person ends their live tokens as every other revocation does: one `token.revoked` per live token
/// (`scope: person`), then `account.deleted`, whichever way the person goes (an app deleting its test user, the
/// admin API and `gatehouse users delete`, their own settings), instead of the tokens vanishing with the row.
@Suite struct PersonDeletionEventTests {
    /// The deletion's events in order: each live token's `token.revoked`, then `account.deleted`.
    static func deletionEvents(_ server: TestServer) async throws -> [GatehouseEvent] {
        try await LoginAndRevocationEventTests.events(server, [.tokenRevoked, .accountDeleted])
    }

    static func revokedDetails(_ tokens: [TokenRecord]) -> [[String: String]] {
        tokens.map { ["kind": "user", "scope": "person", "token_id": $0.id] }.sorted {
            $0["token_id"]! < $1["token_id"]!
        }
    }

    @Test func anAppDeletingItsTestUserAnnouncesEachLiveTokenRevoked() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (scoped, _) = try await FriendshipForgeryTests.testUser(server, client)
            let person = try #require(
                try await server.services.storage.users.userID(appID: server.app.id, scopedID: scoped))
            // A second live token, and one whose expiry has passed (already ended: not announced again).
            let api = V1Client(client: client)
            let minted = try await api.post("/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(person)"}"#)
            #expect(minted.status == .created)
            let short = try await api.post(
                "/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(person)","expires_in":60}"#)
            #expect(short.status == .created)
            let shortID = try #require(short.json["id"]?.stringValue)
            server.clock.advance(by: 120)
            let live = try await server.services.storage.tokens.live(
                appID: nil, userID: person, now: server.clock.now())
            #expect(live.count == 2)
            #expect(try await Self.deletionEvents(server).isEmpty)

            let deleted = try await client.execute(uri: "/\(scoped)?access_token=\(server.appToken)", method: .delete)
            #expect(deleted.status == .ok)
            #expect(deleted.json == ["success": true])
            let events = try await Self.deletionEvents(server)
            #expect(events.map(\.type) == [.tokenRevoked, .tokenRevoked, .accountDeleted])
            let revoked = events.filter { $0.type == .tokenRevoked }
            #expect(revoked.map(\.details).sorted { $0["token_id"]! < $1["token_id"]! } == Self.revokedDetails(live))
            #expect(!revoked.contains { $0.details["token_id"] == shortID })
            #expect(events.allSatisfy { $0.appID == server.app.id && $0.personID == person })
            #expect(events.last?.details == ["apps_told": "0", "by": "app"])
            #expect(try await server.services.storage.users.find(id: person) == nil)
        }
    }

    @Test func anAdministratorsDeletionAnnouncesEachLiveTokenOnceAsThePersons() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            // Alice uses two apps; each removal would revoke its app's tokens, but the person's revocation ends
            // them all first: one event per token, all `scope: person`.
            let otherID = try await TestUserAPITests.secondApp(server).0.id
            _ = try await server.token(for: server.alice)
            let there = try await api.post("/tokens", #"{"app_id":"\#(otherID)","person_id":"\#(server.alice.id)"}"#)
            #expect(there.status == .created)
            let live = try await server.services.storage.tokens.live(
                appID: nil, userID: server.alice.id, now: server.clock.now())
            #expect(Set(live.map(\.appID)) == [server.app.id, otherID])

            let deleted = try await api.delete("/people/\(server.alice.id)")
            #expect(deleted.status == .noContent)
            #expect(deleted.text == "")
            let events = try await Self.deletionEvents(server)
            #expect(events.map(\.type) == [.tokenRevoked, .tokenRevoked, .accountDeleted])
            let revoked = events.filter { $0.type == .tokenRevoked }
            #expect(revoked.map(\.details).sorted { $0["token_id"]! < $1["token_id"]! } == Self.revokedDetails(live))
            #expect(Set(revoked.compactMap(\.appID)) == [server.app.id, otherID])
            #expect(events.allSatisfy { $0.personID == server.alice.id })
            #expect(events.last?.details == ["apps_told": "2"])

            // A person with no live token: no token.revoked, only the deletion.
            #expect(try await api.delete("/people/\(server.bob.id)").status == .noContent)
            let bobs = try await Self.deletionEvents(server).filter { $0.personID == server.bob.id }
            #expect(bobs.map(\.type) == [.accountDeleted])
        }
    }

    @Test func deletingAnAppDeletesItsTestUsersAsPeopleAndAnnouncesEveryTokenItEnds() async throws {
        let server = try await TestServer.make()
        let otherID = try await TestUserAPITests.secondApp(server).0.id
        try await server.v1 { api in
            let (scoped, _) = try await FriendshipForgeryTests.testUser(server, api.client)
            let storage = server.services.storage
            let tester = try #require(try await storage.users.userID(appID: server.app.id, scopedID: scoped))
            let testers = try await storage.tokens.live(appID: nil, userID: tester, now: server.clock.now())
            _ = try await server.token(for: server.alice)
            let alices = try await storage.tokens.live(
                appID: server.app.id, userID: server.alice.id, now: server.clock.now())
            let there = try await api.post("/tokens", #"{"app_id":"\#(otherID)","person_id":"\#(server.alice.id)"}"#)
            #expect(there.status == .created)
            #expect(testers.count == 1 && alices.count == 1)
            _ = try await server.services.tokens.mintAppToken(app: server.app)
            let appToken = try #require(
                try await storage.tokens.live(appID: server.app.id, userID: nil, now: server.clock.now()).first {
                    $0.kind == .app
                })

            let deleted = try await api.delete("/apps/\(server.app.id)")
            #expect(deleted.status == .noContent)
            let events = try await Self.deletionEvents(server)
            #expect(events.map(\.type) == [.tokenRevoked, .accountDeleted, .tokenRevoked, .tokenRevoked])
            #expect(events.map(\.personID) == [tester, tester, server.alice.id, nil])
            #expect(events.allSatisfy { $0.appID == server.app.id })
            #expect(
                events.map(\.details) == [
                    ["kind": "user", "scope": "person", "token_id": testers[0].id],
                    ["apps_told": "0", "by": "app_deleted"],
                    ["kind": "user", "scope": "app_and_person", "token_id": alices[0].id],
                    ["kind": "app", "scope": "token", "token_id": appToken.id],
                ])
            #expect(try await storage.users.find(id: tester) == nil)
            // Alice's token for the other app lives on.
            let left = try await storage.tokens.live(appID: nil, userID: server.alice.id, now: server.clock.now())
            #expect(left.map(\.appID) == [otherID])
        }
    }
}
