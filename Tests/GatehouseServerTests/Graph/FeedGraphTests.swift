import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

extension TestServer {
    /// A user token over a grant with `audience` recorded, as the publish step leaves it.
    func token(for user: UserRecord, granted: [String], audience: Audience?) async throws -> String {
        let now = clock.now()
        try await services.storage.grants.save(
            GrantRecord(
                appID: app.id, userID: user.id, granted: granted, declined: [], createdAt: now, updatedAt: now,
                lastLoginAt: now,
                defaultAudience: audience))
        return try await services.tokens.mintUserToken(
            app: app, userID: user.id, lifetime: Lifetimes.longLivedToken, origin: "test"
        ).0
    }

    /// A third person, friends with nobody.
    func carol() async throws -> UserRecord {
        try await services.accounts.createUser(
            NewUser(email: "carol@example.com", password: "carol-password", firstName: "Carol", lastName: "Chen"))
    }
}

/// Sends a form-encoded Graph call.
func graph(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ form: [(String, String)])
    async throws -> TestResponse
{
    if method == .get || method == .delete {
        return try await client.execute(uri: path + "?" + FormEncoding.encode(form), method: method)
    }
    return try await client.execute(
        uri: path, method: method, headers: [.contentType: "application/x-www-form-urlencoded"],
        body: ByteBuffer(string: FormEncoding.encode(form)))
}

@Suite struct FeedGraphTests {
    @Test func postingNeedsPublishActions() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "user_posts"])
        try await server.run { client in
            let r = try await graph(client, .post, "/v27.0/me/feed", [("message", "hi"), ("access_token", token)])
            #expect(r.status == .forbidden)
            #expect(r.json["error"]?["message"] == "(#200) Requires extended permission: publish_actions")
            #expect(r.json["error"]?["code"] == 200)
            #expect(r.json["error"]?["type"] == "OAuthException")
            // The client token is no user either.
            let client2 = try await graph(
                client, .post, "/me/feed",
                [("message", "hi"), ("access_token", "\(server.app.id)|\(server.app.clientToken)")])
            #expect(client2.json["error"]?["code"] == 2500)
        }
    }

    @Test func postReadBackWithItsFieldsAndAudience() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .friends)
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let created = try await graph(
                client, .post, "/v27.0/me/feed",
                [
                    ("message", "Testing Feed"), ("link", "http://itunes.apple.com/app/blockheadz/id386884355?mt=8#"),
                    ("name", "Testing FacebookSampleApp Feed Dialog"),
                    ("caption", "Using Feed Dialogs within iOS are great."),
                    ("description", "Click to check out my BlockHeadz game"),
                    ("picture", "http://geniesoftstudios.com/blockhead.png"),
                    ("access_token", token),
                ])
            #expect(created.status == .ok)
            let id = try #require(created.json["id"]?.stringValue)
            #expect(created.text == #"{"id":"\#(id)"}"#)
            let parts = id.split(separator: "_").map(String.init)
            #expect(parts.count == 2 && parts[0] == scoped && parts[1].count == 16)

            // The poster reads back what the app published, even without user_posts.
            let plain = try await graph(client, .get, "/v27.0/\(id)", [("access_token", token)])
            #expect(
                plain.text == #"{"created_time":"2027-01-15T08:00:00+0000","message":"Testing Feed","id":"\#(id)"}"#)
            let full = try await graph(
                client, .get, "/\(id)",
                [("fields", "from,privacy,link,name,caption,description,picture,application"), ("access_token", token)])
            #expect(
                full.text
                    == #"{"from":{"name":"Alice Anders","id":"\#(scoped)"},"privacy":{"value":"ALL_FRIENDS","#
                    + #""description":"Your friends","friends":"","allow":"","deny":""},"#
                    + #""link":"http://itunes.apple.com/app/blockheadz/id386884355?mt=8#","name":"Testing "#
                    + #"FacebookSampleApp Feed Dialog","caption":"Using Feed Dialogs within iOS are great.","#
                    + #""description":"Click to check out my BlockHeadz game","#
                    + #""picture":"http://geniesoftstudios.com/blockhead.png","application":{"name":"Test App","id":"\#(server.app.id)"}}"#
            )
            let bogus = try await graph(client, .get, "/\(id)", [("fields", "likes"), ("access_token", token)])
            #expect(
                bogus.json["error"]?["message"]
                    == "(#100) Tried accessing nonexisting field (likes) on node type (Post)")

            let feed = try await graph(client, .get, "/me/feed", [("access_token", token)])
            #expect(
                feed.json["data"] == [
                    ["created_time": "2027-01-15T08:00:00+0000", "message": "Testing Feed", "id": .string(id)]
                ])
            #expect(feed.json["paging"]?["cursors"] != nil)
            #expect(feed.json["paging"]?["next"] == nil)
        }
    }

    @Test func badPostsGetFacebooksErrors() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .friends)
        let bob = try await server.scopedID(server.bob)
        try await server.run { client in
            let cases: [([(String, String)], String)] = [
                ([("caption", "only")], "(#100) Missing message or attachment"),
                ([("message", "   ")], "(#100) Missing message or attachment"),
                ([("link", "not a url")], "(#100) link URL is not properly formatted"),
                ([("link", "javascript:alert(1)")], "(#100) link URL is not properly formatted"),
                ([("message", "x"), ("picture", "ftp://x/y.png")], "(#100) picture URL is not properly formatted"),
                (
                    [("message", "x"), ("privacy", "{\"value\":\"CUSTOM\"}")],
                    "(#100) privacy must be a JSON object whose value is EVERYONE, ALL_FRIENDS or SELF"
                ),
                (
                    [("message", String(repeating: "a", count: 63_207))],
                    "(#100) Message is too long (63206 characters at most)"
                ),
            ]
            for (form, message) in cases {
                let r = try await graph(client, .post, "/me/feed", form + [("access_token", token)])
                #expect(r.status == .badRequest)
                #expect(r.json["error"]?["message"]?.stringValue == message)
            }
            let other = try await graph(
                client, .post, "/\(bob)/feed", [("message", "hi bob"), ("access_token", token)])
            #expect(other.status == .forbidden)
            #expect(
                other.json["error"]?["message"]
                    == "(#200) Feed story publishing to other users is disabled for this application")
            #expect(try await server.services.storage.posts.posts(appID: server.app.id, limit: 10).isEmpty)
        }
    }

    @Test func friendsSeePostsPerAudienceWithUserPosts() async throws {
        let server = try await TestServer.make()
        let carol = try await server.carol()
        // Alice chose "friends" on the publish step; a post may only narrow it.
        let alice = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .friends)
        let bob = try await server.token(for: server.bob, granted: ["public_profile"], audience: nil)
        let carolToken = try await server.token(for: carol, granted: ["public_profile", "user_posts"], audience: nil)
        let aliceScoped = try await server.scopedID(server.alice)
        try await server.run { client in
            func post(_ message: String, privacy: String? = nil) async throws -> String {
                var form = [("message", message), ("access_token", alice)]
                if let privacy { form.append(("privacy", "{\"value\":\"\(privacy)\"}")) }
                return try #require(try await graph(client, .post, "/me/feed", form).json["id"]?.stringValue)
            }
            let friendsPost = try await post("for friends")
            let onlyMe = try await post("for me", privacy: "SELF")
            let capped = try await post("asked public", privacy: "EVERYONE")
            let stored = try await server.services.storage.posts.find(id: String(capped.split(separator: "_")[1]))
            #expect(stored?.audience == .friends)

            // Without user_posts a friend reads nothing.
            let noPerm = try await graph(client, .get, "/\(aliceScoped)/feed", [("access_token", bob)])
            #expect(noPerm.json["error"]?["message"] == "(#200) Requires extended permission: user_posts")
            #expect(
                try await graph(client, .get, "/\(friendsPost)", [("access_token", bob)]).json["error"]?[
                    "error_subcode"] == 33)

            // Bob grants user_posts (tokens read the live grant): the friends posts, never the only-me one.
            _ = try await server.token(for: server.bob, granted: ["public_profile", "user_posts"], audience: nil)
            let bobFeed = try await graph(
                client, .get, "/\(aliceScoped)/feed", [("access_token", bob), ("fields", "message,privacy{value}")])
            #expect(
                bobFeed.json["data"]?.arrayValue?.map { $0["message"]?.stringValue } == ["asked public", "for friends"])
            #expect(try await graph(client, .get, "/\(friendsPost)", [("access_token", bob)]).status == .ok)
            let hidden = try await graph(client, .get, "/\(onlyMe)", [("access_token", bob)])
            #expect(hidden.json["error"]?["error_subcode"] == 33)
            #expect(
                hidden.json["error"]?["message"]?.stringValue?.hasPrefix(
                    "Unsupported get request. Object with ID '\(onlyMe)' does not exist") == true)
            // Carol is no friend.
            let carolFeed = try await graph(client, .get, "/\(aliceScoped)/feed", [("access_token", carolToken)])
            #expect(carolFeed.text == #"{"data":[]}"#)
            // Alice sees all three.
            #expect(
                try await graph(client, .get, "/me/feed", [("access_token", alice)]).json["data"]?.arrayValue?.count
                    == 3)
            // The app token sees what the app published.
            #expect(
                try await graph(client, .get, "/\(aliceScoped)/feed", [("access_token", server.appToken)]).json["data"]?
                    .arrayValue?.count == 3)
        }
    }

    @Test func publicPostsReachEveryoneWithUserPosts() async throws {
        let server = try await TestServer.make()
        let carol = try await server.carol()
        let alice = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .everyone)
        let carolToken = try await server.token(for: carol, granted: ["public_profile", "user_posts"], audience: nil)
        try await server.run { client in
            let id = try #require(
                try await graph(client, .post, "/me/feed", [("message", "hello world"), ("access_token", alice)]).json[
                    "id"]?.stringValue)
            let read = try await graph(
                client, .get, "/\(id)", [("fields", "message,privacy{value}"), ("access_token", carolToken)])
            #expect(read.json["message"] == "hello world")
            #expect(read.json["privacy"]?["value"] == "EVERYONE")
        }
    }

    @Test func onlyThePublishingAppDeletes() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .everyone)
        let bob = try await server.token(for: server.bob, granted: ["public_profile", "user_posts"], audience: nil)
        let aliceAgain = try await server.services.tokens.mintUserToken(
            app: server.app, userID: server.alice.id, lifetime: 3600, origin: "test"
        ).0
        try await server.run { client in
            let id = try #require(
                try await graph(client, .post, "/me/feed", [("message", "delete me"), ("access_token", alice)]).json[
                    "id"]?.stringValue)
            let byBob = try await graph(client, .delete, "/\(id)", [("access_token", bob)])
            #expect(byBob.status == .forbidden)
            #expect(byBob.json["error"]?["message"] == "(#200) Permissions error")
            let deleted = try await graph(client, .delete, "/\(id)", [("access_token", aliceAgain)])
            #expect(deleted.text == #"{"success":true}"#)
            let gone = try await graph(client, .get, "/\(id)", [("access_token", alice)])
            #expect(gone.json["error"]?["error_subcode"] == 33)
            let again = try await graph(client, .delete, "/\(id)", [("access_token", alice)])
            #expect(again.json["error"]?["error_subcode"] == 33)
            // A made-up post id is just as absent.
            #expect(
                try await graph(client, .get, "/1_2", [("access_token", alice)]).json["error"]?["error_subcode"] == 33)
        }
    }

    @Test func appTokenPostsForAPersonWhoGrantedPublishActions() async throws {
        let server = try await TestServer.make()
        _ = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .onlyMe)
        _ = try await server.token(for: server.bob, granted: ["public_profile"], audience: nil)
        let alice = try await server.scopedID(server.alice), bob = try await server.scopedID(server.bob)
        try await server.run { client in
            let ok = try await graph(
                client, .post, "/\(alice)/feed", [("message", "from the backend"), ("access_token", server.appToken)])
            let id = try #require(ok.json["id"]?.stringValue)
            #expect(id.hasPrefix(alice + "_"))
            #expect(
                try await graph(
                    client, .get, "/\(id)", [("fields", "privacy{value}"), ("access_token", server.appToken)]
                ).json["privacy"]?["value"] == "SELF")
            let refused = try await graph(
                client, .post, "/\(bob)/feed", [("message", "x"), ("access_token", server.appToken)])
            #expect(refused.json["error"]?["message"] == "(#200) Requires extended permission: publish_actions")
            let deleted = try await graph(client, .delete, "/\(id)", [("access_token", server.appToken)])
            #expect(deleted.text == #"{"success":true}"#)
        }
    }
}
