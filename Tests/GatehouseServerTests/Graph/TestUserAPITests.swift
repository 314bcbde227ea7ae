import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HummingbirdTesting
import NIOCore
import Testing
import HTTPTypes

/// Issue 41, item 3: the whole test-user API (Facebook's Application Accounts edge and Test User node): create,
/// list, read, update, add to a second app with the owner's app token, remove from an app, delete, and friend
/// requests confirmed in both directions.
@Suite struct TestUserAPITests {
    /// One Graph call: GET and DELETE carry `params` in the query, POST as a form body.
    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ params: [(String, String)]
    ) async throws -> TestResponse {
        let encoded = FormEncoding.encode(params)
        if method == .post {
            return try await client.execute(
                uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: encoded))
        }
        return try await client.execute(uri: path + "?" + encoded, method: method)
    }

    static func error(_ message: String, code: Int) -> JSONValue {
        ["error": ["message": .string(message), "type": "OAuthException", "code": .int(Int64(code))]]
    }

    static let success = #"{"success":true}"#

    /// A second app and its app token.
    static func secondApp(_ server: TestServer) async throws -> (AppRecord, String) {
        let other = try await server.services.accounts.createApp(
            name: "Second App", redirectURIs: ["https://second.example/cb"])
        return (other, "\(other.id)|\(other.secret)")
    }

    /// A test user of the server's app, installed with `permissions`: (id, access token).
    static func created(
        _ server: TestServer, _ client: any TestClientProtocol, permissions: String = "email,user_friends"
    ) async throws -> (String, String) {
        let r = try await call(
            client, .post, "/v21.0/\(server.app.id)/accounts/test-users",
            [("installed", "true"), ("permissions", permissions), ("access_token", server.appToken)])
        #expect(r.status == .ok)
        return (try #require(r.json["id"]?.stringValue), try #require(r.json["access_token"]?.stringValue))
    }

    @Test func createReadUpdateAndDelete() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let app = server.app
            let created = try await Self.call(
                client, .post, "/v21.0/\(app.id)/accounts/test-users",
                [
                    ("installed", "false"), ("name", "Tess Tester"), ("locale", "pt_BR"),
                    ("access_token", server.appToken),
                ])
            #expect(created.status == .ok)
            // Not installed: no access token.
            #expect(created.json.objectValue?.pairs.map(\.0) == ["id", "login_url", "email", "password"])
            let id = try #require(created.json["id"]?.stringValue)
            let read = try await Self.call(
                client, .get, "/v21.0/\(id)", [("fields", "id,name,locale"), ("access_token", server.appToken)])
            #expect(read.text == #"{"id":"\#(id)","name":"Tess Tester","locale":"pt_BR"}"#)

            let renamed = try await Self.call(
                client, .post, "/v21.0/\(id)", [("name", "Tess Renamed"), ("access_token", server.appToken)])
            #expect(renamed.status == .ok)
            #expect(renamed.text == Self.success)
            let reread = try await Self.call(
                client, .get, "/v21.0/\(id)",
                [("fields", "name,first_name,last_name"), ("access_token", server.appToken)])
            #expect(reread.text == #"{"name":"Tess Renamed","first_name":"Tess","last_name":"Renamed"}"#)

            let userID = try #require(try await server.services.storage.users.userID(appID: app.id, scopedID: id))
            let password = try await Self.call(
                client, .post, "/v21.0/\(id)", [("password", "new-secret-1"), ("access_token", server.appToken)])
            #expect(password.text == Self.success)
            let stored = try #require(try await server.services.storage.users.find(id: userID))
            #expect(try await server.services.passwords.verify("new-secret-1", hash: stored.passwordHash))

            let short = try await Self.call(
                client, .post, "/v21.0/\(id)", [("password", "five5"), ("access_token", server.appToken)])
            #expect(short.status == .badRequest)
            #expect(short.json == Self.error("(#100) password must be 6 to 128 characters", code: 100))
            let nothing = try await Self.call(client, .post, "/v21.0/\(id)", [("access_token", server.appToken)])
            #expect(nothing.json == Self.error("(#100) The parameter name or password is required", code: 100))
            let badLocale = try await Self.call(
                client, .post, "/v21.0/\(app.id)/accounts/test-users",
                [("locale", "English"), ("access_token", server.appToken)])
            #expect(
                badLocale.json == Self.error("(#100) locale must be a language and a country, as en_US", code: 100))

            // A real person is no test user: their node takes no POST.
            let aliceID = try await server.scopedID(server.alice)
            let notTest = try await Self.call(
                client, .post, "/v21.0/\(aliceID)", [("name", "Mallory"), ("access_token", server.appToken)])
            #expect(notTest.status == .badRequest)
            #expect(notTest.json["error"]?["code"] == 100)
            #expect(notTest.json["error"]?["error_subcode"] == 33)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.firstName == "Alice")

            let deleted = try await Self.call(client, .delete, "/v21.0/\(id)", [("access_token", server.appToken)])
            #expect(deleted.text == Self.success)
            #expect(try await server.services.storage.users.find(id: userID) == nil)
        }
    }

    @Test func addedToASecondAppRemovedFromItAndDeleted() async throws {
        let server = try await TestServer.make()
        let (second, secondToken) = try await Self.secondApp(server)
        try await server.run { client in
            let (uid, _) = try await Self.created(server, client)
            let edge = "/v21.0/\(second.id)/accounts/test-users"
            let added = try await Self.call(
                client, .post, edge,
                [
                    ("uid", uid), ("owner_access_token", server.appToken), ("installed", "true"),
                    ("permissions", "email"), ("access_token", secondToken),
                ])
            #expect(added.status == .ok)
            #expect(added.text == Self.success)

            // The second app lists it under its own id, installed, and its token reads the same person.
            let listed = try await Self.call(client, .get, edge, [("access_token", secondToken)])
            let entry = try #require(listed.json["data"]?[0]?.objectValue)
            #expect(entry.pairs.map(\.0) == ["id", "login_url", "access_token"])
            #expect(listed.json["data"]?.arrayValue?.count == 1)
            let hereID = try #require(entry["id"]?.stringValue)
            #expect(hereID != uid)
            let token = try #require(entry["access_token"]?.stringValue)
            let me = try await Self.call(client, .get, "/v21.0/me", [("fields", "id,name"), ("access_token", token)])
            #expect(me.text == #"{"id":"\#(hereID)","name":"Open Graph Test User"}"#)
            // Its login_url for the second app opens the confirmation page (the login is a CSRF-checked POST).
            let link = try #require(entry["login_url"]?.stringValue)
            let confirm = try await Browser(client).get(Browser.relative(link))
            #expect(confirm.status == .ok)
            #expect(Browser.hiddenValue("app_id", in: confirm.text) == second.id)
            let granted = try await Self.call(client, .get, "/v21.0/me/permissions", [("access_token", token)])
            #expect(
                granted.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","status":"granted"}]}"#
            )

            let again = try await Self.call(
                client, .post, edge,
                [("uid", uid), ("owner_access_token", server.appToken), ("access_token", secondToken)])
            #expect(again.json == Self.error("(#100) The test user is already associated with this app", code: 100))

            // Removed from the second app: its grant and tokens go; the first app keeps the test user.
            let removed = try await Self.call(client, .delete, edge, [("uid", hereID), ("access_token", secondToken)])
            #expect(removed.text == Self.success)
            let empty = try await Self.call(client, .get, edge, [("access_token", secondToken)])
            #expect(empty.text == #"{"data":[],"paging":{}}"#)
            let revoked = try await Self.call(client, .get, "/v21.0/me", [("access_token", token)])
            #expect(revoked.json["error"]?["code"] == 190)
            let firstEdge = "/v21.0/\(server.app.id)/accounts/test-users"
            let stillFirst = try await Self.call(client, .get, firstEdge, [("access_token", server.appToken)])
            #expect(stillFirst.json["data"]?[0]?["id"]?.stringValue == uid)

            // Its only app cannot let it go (Facebook's 2902); it can be deleted instead.
            let only = try await Self.call(
                client, .delete, firstEdge, [("uid", uid), ("access_token", server.appToken)])
            #expect(only.status == .badRequest)
            #expect(only.json == Self.error("(#2902) Cannot remove test account from this app", code: 2902))

            // Added again, then removed from the app that created it: the second app holds it from then on.
            let readded = try await Self.call(
                client, .post, edge,
                [("uid", uid), ("owner_access_token", server.appToken), ("access_token", secondToken)])
            #expect(readded.text == Self.success)
            let left = try await Self.call(
                client, .delete, firstEdge, [("uid", uid), ("access_token", server.appToken)])
            #expect(left.text == Self.success)
            let none = try await Self.call(client, .get, firstEdge, [("access_token", server.appToken)])
            #expect(none.text == #"{"data":[],"paging":{}}"#)
            let userID = try #require(
                try await server.services.storage.users.userID(appID: second.id, scopedID: hereID))
            #expect(try await server.services.storage.users.find(id: userID)?.testUserOfAppID == second.id)
            #expect(try await server.services.storage.grants.find(appID: server.app.id, userID: userID) == nil)

            // The first app no longer holds it and may not delete it; the second may.
            let foreign = try await Self.call(client, .delete, "/v21.0/\(uid)", [("access_token", server.appToken)])
            #expect(foreign.json == Self.error("(#2903) Cannot delete this test account", code: 2903))
            let deleted = try await Self.call(client, .delete, "/v21.0/\(hereID)", [("access_token", secondToken)])
            #expect(deleted.text == Self.success)
            #expect(try await server.services.storage.users.find(id: userID) == nil)
        }
    }

    @Test func associationRefusals() async throws {
        let server = try await TestServer.make(configure: { $0.limits.testUsersPerApp = 1 })
        let (second, secondToken) = try await Self.secondApp(server)
        try await server.run { client in
            let (uid, userToken) = try await Self.created(server, client)
            let edge = "/v21.0/\(second.id)/accounts/test-users"
            let noOwner = try await Self.call(client, .post, edge, [("uid", uid), ("access_token", secondToken)])
            #expect(noOwner.status == .badRequest)
            #expect(noOwner.json == Self.error("(#100) The parameter owner_access_token is required", code: 100))
            let noUID = try await Self.call(
                client, .post, edge, [("owner_access_token", server.appToken), ("access_token", secondToken)])
            #expect(noUID.json == Self.error("(#100) The parameter uid is required", code: 100))
            let ownerMessage =
                "(#100) owner_access_token must be the app access token of an app the test user belongs to"
            for bad in [userToken, "\(server.app.id)|wrong-secret", "nonsense"] {
                let r = try await Self.call(
                    client, .post, edge, [("uid", uid), ("owner_access_token", bad), ("access_token", secondToken)])
                #expect(r.json == Self.error(ownerMessage, code: 100), "\(bad.prefix(12))")
            }
            // A real person, or an id the owner app does not know, is no test user of the owner.
            let aliceID = try await server.scopedID(server.alice)
            for notTest in [aliceID, "123456789"] {
                let r = try await Self.call(
                    client, .post, edge,
                    [("uid", notTest), ("owner_access_token", server.appToken), ("access_token", secondToken)])
                #expect(
                    r.json
                        == Self.error(
                            "(#100) \(notTest) is not a test user of the app owner_access_token belongs to", code: 100))
            }
            // Only the app itself: another app's token on this edge, and a user token, are refused.
            let wrongApp = try await Self.call(
                client, .post, edge,
                [("uid", uid), ("owner_access_token", server.appToken), ("access_token", server.appToken)])
            #expect(wrongApp.json == Self.error("(#15) This method must be called with an app access_token.", code: 15))
            // Associating itself with its own app.
            let own = try await Self.call(
                client, .post, "/v21.0/\(server.app.id)/accounts/test-users",
                [("uid", uid), ("owner_access_token", server.appToken), ("access_token", server.appToken)])
            #expect(own.json == Self.error("(#100) The test user is already associated with this app", code: 100))

            // The second app is at its cap (one test user): an association counts as one.
            let r = try await Self.call(
                client, .post, edge, [("installed", "false"), ("access_token", secondToken)])
            #expect(r.status == .ok)
            let full = try await Self.call(
                client, .post, edge,
                [("uid", uid), ("owner_access_token", server.appToken), ("access_token", secondToken)])
            #expect(full.json == Self.error("(#2900) Too many test accounts", code: 2900))
            #expect(
                try await server.services.storage.users.testUsers(appID: second.id).count == 1)

            // Removal: uid required, and a test user of this app.
            let noRemoveUID = try await Self.call(client, .delete, edge, [("access_token", secondToken)])
            #expect(noRemoveUID.json == Self.error("(#100) The parameter uid is required", code: 100))
            let notHere = try await Self.call(client, .delete, edge, [("uid", uid), ("access_token", secondToken)])
            #expect(notHere.json == Self.error("(#100) \(uid) is not a test user of this app", code: 100))
        }
    }

    @Test func aFriendRequestIsConfirmedByTheOtherSide() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (first, firstToken) = try await Self.created(server, client)
            let (second, secondToken) = try await Self.created(server, client)
            let asked = try await Self.call(
                client, .post, "/v21.0/\(first)/friends/\(second)", [("access_token", firstToken)])
            #expect(asked.text == Self.success)
            let pending = try await Self.call(client, .get, "/v21.0/me/friends", [("access_token", firstToken)])
            #expect(pending.json["data"] == .array([]))
            #expect(pending.json["summary"]?["total_count"] == 0)

            let confirmed = try await Self.call(
                client, .post, "/v21.0/\(second)/friends/\(first)", [("access_token", secondToken)])
            #expect(confirmed.text == Self.success)
            let friends = try await Self.call(
                client, .get, "/v21.0/me/friends", [("fields", "id"), ("access_token", firstToken)])
            #expect(friends.json["data"] == .array([.object(["id": .string(second)])]))
            // Asking again changes nothing.
            let again = try await Self.call(
                client, .post, "/v21.0/\(first)/friends/\(second)", [("access_token", firstToken)])
            #expect(again.text == Self.success)
            let firstID = try #require(
                try await server.services.storage.users.userID(appID: server.app.id, scopedID: first))
            #expect(try await server.services.storage.friendships.friends(of: firstID).count == 1)
            #expect(try await server.services.storage.friendships.requests(to: firstID).isEmpty)
        }
    }

    @Test func theAssociationAnswersABareTrueBeforeV2_1() async throws {
        let server = try await TestServer.make()
        let (second, secondToken) = try await Self.secondApp(server)
        try await server.run { client in
            let (uid, _) = try await Self.created(server, client)
            let added = try await Self.call(
                client, .post, "/v2.0/\(second.id)/accounts/test-users",
                [("uid", uid), ("owner_access_token", server.appToken), ("access_token", secondToken)])
            #expect(added.text == "true")
        }
    }

    /// The issue's "done when", with only `GET`: `method=post` and `method=delete` reach the same handlers.
    @Test func theWholeLifecycleThroughGETMethodForms() async throws {
        let server = try await TestServer.make()
        let (second, secondToken) = try await Self.secondApp(server)
        try await server.run { client in
            func get(_ path: String, _ method: String, _ params: [(String, String)]) async throws -> TestResponse {
                try await Self.call(client, .get, "/v21.0" + path, [("method", method)] + params)
            }
            let edge = "/\(server.app.id)/accounts/test-users"
            let first = try await get(
                edge, "post", [("permissions", "user_friends"), ("name", "Ann Get"), ("access_token", server.appToken)])
            #expect(first.json.objectValue?.pairs.map(\.0) == ["id", "access_token", "login_url", "email", "password"])
            let other = try await get(edge, "post", [("access_token", server.appToken)])
            let (a, aToken) = (first.json["id"]!.stringValue!, first.json["access_token"]!.stringValue!)
            let (b, bToken) = (other.json["id"]!.stringValue!, other.json["access_token"]!.stringValue!)

            #expect(try await get("/\(a)/friends/\(b)", "post", [("access_token", aToken)]).text == Self.success)
            #expect(try await get("/\(b)/friends/\(a)", "post", [("access_token", bToken)]).text == Self.success)
            let aID = try #require(try await server.services.storage.users.userID(appID: server.app.id, scopedID: a))
            #expect(try await server.services.storage.friendships.friends(of: aID).count == 1)

            #expect(
                try await get("/\(a)", "post", [("name", "Ann Renamed"), ("access_token", server.appToken)]).text
                    == Self.success)
            let secondEdge = "/\(second.id)/accounts/test-users"
            let added = try await get(
                secondEdge, "post",
                [("uid", a), ("owner_access_token", server.appToken), ("access_token", secondToken)])
            #expect(added.text == Self.success)
            let listed = try await Self.call(client, .get, "/v21.0" + secondEdge, [("access_token", secondToken)])
            let hereID = try #require(listed.json["data"]?[0]?["id"]?.stringValue)
            let removed = try await get(secondEdge, "delete", [("uid", hereID), ("access_token", secondToken)])
            #expect(removed.text == Self.success)
            #expect(try await server.services.storage.users.associatedApps(testUserID: aID).isEmpty)

            #expect(try await get("/\(a)", "delete", [("access_token", server.appToken)]).text == Self.success)
            #expect(try await server.services.storage.users.find(id: aID) == nil)
        }
    }
}
