import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

/// The feed and requests dialogs: pages, forms, and the redirects back to the app.
@Suite struct SocialDialogTests {
    static func query(_ server: TestServer, _ extra: [(String, String)]) -> String {
        FormEncoding.encode([("app_id", server.app.id), ("redirect_uri", TestServer.redirectURI)] + extra)
    }

    /// Opens `path?query`, logs in as `email` on the shared login form, and returns the dialog page.
    static func open(_ browser: Browser, _ path: String, _ query: String, email: String, password: String) async throws
        -> TestResponse
    {
        let login = try await browser.get(path + "?" + query)
        #expect(login.text.contains("<input type=\"hidden\" name=\"kind\""))
        let html = login.text
        let posted = try await browser.post(
            "/dialog/oauth/login",
            form: [
                ("csrf_token", Browser.hiddenValue("csrf_token", in: html) ?? ""),
                ("dialog", Browser.hiddenValue("dialog", in: html) ?? ""),
                ("kind", Browser.hiddenValue("kind", in: html) ?? ""), ("email", email), ("password", password),
            ])
        #expect(posted.status == .seeOther)
        #expect(posted.location?.hasPrefix(path + "?") == true)
        return try await browser.get(posted.location!)
    }

    static func form(_ page: TestResponse, _ extra: [(String, String)]) -> [(String, String)] {
        [
            ("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? ""),
            ("dialog", Browser.hiddenValue("dialog", in: page.text) ?? ""),
        ] + extra
    }

    @Test func requestsForBadAppsOrRedirectsGetAnErrorPage() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for path in ["/dialog/feed", "/dialog/apprequests", "/v27.0/dialog/feed"] {
                let unknown = try await client.execute(
                    uri: path + "?app_id=999&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback", method: .get)
                #expect(unknown.status == .badRequest)
                #expect(unknown.headers[.location] == nil)
                #expect(unknown.text.contains("This app does not exist"))
                let evil = try await client.execute(
                    uri: path + "?"
                        + FormEncoding.encode([
                            ("app_id", server.app.id), ("redirect_uri", "https://evil.example.com/cb"),
                        ]), method: .get)
                #expect(evil.status == .badRequest)
                #expect(evil.headers[.location] == nil)
            }
            // Bad parameters with a good redirect go back to the app as Facebook's dialog errors.
            let link = try await client.execute(
                uri: "/dialog/feed?" + Self.query(server, [("link", "nope")]), method: .get)
            #expect(link.status == .found)
            #expect(
                link.location == TestServer.redirectURI
                    + "?error_code=100&error_message=link+URL+is+not+properly+formatted#_=_")
            let noMessage = try await client.execute(uri: "/dialog/apprequests?" + Self.query(server, []), method: .get)
            #expect(
                noMessage.location == TestServer.redirectURI
                    + "?error_code=100&error_message=The+parameter+message+is+required#_=_")
            let toFriend = try await client.execute(
                uri: "/dialog/feed?" + Self.query(server, [("to", "123")]), method: .get)
            #expect(redirectParameters(toFriend.location!)["error_code"] == "200")
        }
    }

    @Test func feedDialogPostsWithTheChosenAudience() async throws {
        let server = try await TestServer.make()
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let browser = Browser(client)
            let query = Self.query(
                server,
                [
                    ("link", "https://example.com/game"), ("name", "BlockHeadz"),
                    ("caption", "Feed dialogs are great."),
                    ("description", "<b>Click</b>"), ("message", "apps cannot prefill this"), ("display", "touch"),
                    ("sdk", "ios"),
                ])
            let page = try await Self.open(
                browser, "/dialog/feed", query, email: "alice@example.com", password: "alice-password")
            #expect(page.status == .ok)
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(page.text.contains("action=\"/dialog/feed/post\""))
            #expect(page.text.contains("<label for=\"message\">"))
            #expect(
                page.text.contains("&lt;b&gt;Click&lt;&#x2F;b&gt;") || page.text.contains("&lt;b&gt;Click&lt;/b&gt;"))
            #expect(!page.text.contains("apps cannot prefill this"))
            #expect(page.text.contains("<option value=\"friends\" selected>Friends</option>"))

            let forged = try await browser.post(
                "/dialog/feed/post", form: [("csrf_token", "x"), ("dialog", query), ("message", "hi")])
            #expect(forged.status == .forbidden)

            let done = try await browser.post(
                "/dialog/feed/post",
                form: Self.form(page, [("action", "post"), ("message", "Look at this"), ("audience", "only_me")]))
            #expect(done.status == .seeOther)
            let location = try #require(done.location)
            #expect(location.hasPrefix(TestServer.redirectURI + "?post_id=\(scoped)_"))
            #expect(location.hasSuffix("#_=_"))
            let postID = try #require(redirectParameters(location)["post_id"])
            let stored = try #require(
                try await server.services.storage.posts.find(id: String(postID.split(separator: "_")[1])))
            #expect(stored.message == "Look at this")
            #expect(stored.link == "https://example.com/game")
            #expect(stored.name == "BlockHeadz")
            #expect(stored.audience == .onlyMe)
            #expect(stored.appID == server.app.id)
            #expect(stored.authorID == server.alice.id)

            // A link is enough; with neither message nor link the page asks again.
            let bare = try await browser.get("/dialog/feed?" + Self.query(server, []))
            let empty = try await browser.post(
                "/dialog/feed/post", form: Self.form(bare, [("action", "post"), ("message", " ")]))
            #expect(empty.status == .badRequest)
            #expect(empty.text.contains("role=\"alert\">Write something to post."))

            // Cancel: Facebook's 4201.
            let again = try await browser.get("/v27.0/dialog/feed?" + query)
            let cancelled = try await browser.post("/dialog/feed/post", form: Self.form(again, [("action", "cancel")]))
            #expect(
                cancelled.location == TestServer.redirectURI
                    + "?error_code=4201&error_message=User+canceled+the+Dialog+flow#_=_")
        }
    }

    @Test func requestsDialogSendsToPickedFriendsWhoSeeThem() async throws {
        let server = try await TestServer.make()
        let carol = try await server.carol()
        try await server.services.storage.friendships.befriend(server.alice.id, carol.id, at: server.clock.now())
        let bobScoped = try await server.scopedID(server.bob), carolScoped = try await server.scopedID(carol),
            aliceScoped = try await server.scopedID(server.alice)
        let bobToken = try await server.token(for: server.bob, granted: ["public_profile"])
        let carolToken = try await server.token(for: carol, granted: ["public_profile"])
        let aliceToken = try await server.token(for: server.alice, granted: ["public_profile"])
        try await server.run { client in
            let browser = Browser(client)
            let query = Self.query(
                server,
                [
                    ("message", "invites you to check out some great stuff."), ("data", "level=3"),
                    ("title", "Play with me"),
                ])
            let page = try await Self.open(
                browser, "/dialog/apprequests", query, email: "alice@example.com", password: "alice-password")
            #expect(page.text.contains("action=\"/dialog/apprequests/send\""))
            #expect(page.text.contains("invites you to check out some great stuff."))
            #expect(Browser.values(named: "to", in: page.text) == [bobScoped, carolScoped])
            #expect(
                page.text.contains("<label for=\"to-\(bobScoped)\"><span class=\"perm-title\">Bob Brown</span></label>")
            )

            let none = try await browser.post("/dialog/apprequests/send", form: Self.form(page, [("action", "send")]))
            #expect(none.status == .badRequest)
            #expect(none.text.contains("Choose at least one friend."))
            // A stranger's id slipped into the form is ignored.
            let sent = try await browser.post(
                "/dialog/apprequests/send",
                form: Self.form(page, [("action", "send"), ("to", bobScoped), ("to", "999"), ("to", carolScoped)]))
            #expect(sent.status == .seeOther)
            let params = redirectParameters(try #require(sent.location))
            let requestID = try #require(params["request"])
            #expect(
                sent.location == TestServer.redirectURI
                    + "?request=\(requestID)&to%5B0%5D=\(bobScoped)&to%5B1%5D=\(carolScoped)#_=_")

            // Bob sees it with his token for the app.
            let list = try await graph(client, .get, "/v27.0/me/apprequests", [("access_token", bobToken)])
            #expect(
                list.text
                    == #"{"data":[{"id":"\#(requestID)_\#(bobScoped)","application":{"name":"Test App","#
                    + #""id":"\#(server.app.id)"},"to":{"name":"Bob Brown","id":"\#(bobScoped)"},"#
                    + #""from":{"name":"Alice Anders","id":"\#(aliceScoped)"},"message":"invites you to check "#
                    + #"out some great stuff.","data":"level=3","created_time":"2027-01-15T08:00:00+0000"}]}"#
            )
            // The bare request id reads as Bob's own copy; the sender sees the request without recipients.
            #expect(
                try await graph(client, .get, "/\(requestID)", [("access_token", bobToken)]).json["id"]
                    == .string("\(requestID)_\(bobScoped)"))
            let senderView = try await graph(client, .get, "/\(requestID)", [("access_token", aliceToken)])
            #expect(senderView.json["id"] == .string(requestID))
            #expect(senderView.json["to"] == nil)
            // The sender may not delete it; the recipient may; the app may delete Carol's.
            let bySender = try await graph(
                client, .delete, "/\(requestID)_\(bobScoped)", [("access_token", aliceToken)])
            #expect(bySender.json["error"]?["message"] == "(#200) Permissions error")
            #expect(
                try await graph(client, .delete, "/\(requestID)_\(bobScoped)", [("access_token", bobToken)]).text
                    == #"{"success":true}"#)
            #expect(
                try await graph(client, .get, "/me/apprequests", [("access_token", bobToken)]).text == #"{"data":[]}"#)
            #expect(
                try await graph(client, .get, "/me/apprequests", [("access_token", carolToken)]).json["data"]?
                    .arrayValue?.count == 1)
            #expect(
                try await graph(client, .delete, "/\(requestID)_\(carolScoped)", [("access_token", server.appToken)])
                    .text == #"{"success":true}"#)
            #expect(
                try await graph(client, .get, "/\(requestID)_\(carolScoped)", [("access_token", carolToken)]).json[
                    "error"]?["error_subcode"] == 33)
        }
    }

    @Test func requestsDialogWithToShowsOnlyThoseAndRefusesStrangers() async throws {
        let server = try await TestServer.make()
        let carol = try await server.carol()
        let bobScoped = try await server.scopedID(server.bob), carolScoped = try await server.scopedID(carol)
        try await server.run { client in
            let browser = Browser(client)
            let page = try await Self.open(
                browser, "/dialog/apprequests", Self.query(server, [("message", "hi"), ("to", bobScoped)]),
                email: "alice@example.com", password: "alice-password")
            #expect(Browser.values(named: "to", in: page.text) == [bobScoped])
            #expect(page.text.contains("value=\"\(bobScoped)\" checked"))
            let cancelled = try await browser.post(
                "/dialog/apprequests/send", form: Self.form(page, [("action", "cancel")]))
            #expect(redirectParameters(cancelled.location!)["error_code"] == "4201")
            let stranger = try await browser.get(
                "/dialog/apprequests?" + Self.query(server, [("message", "hi"), ("to", carolScoped)]))
            #expect(stranger.status == .found)
            #expect(
                redirectParameters(stranger.location!)["error_message"]
                    == "to: \(carolScoped) is not a friend of the sender")
        }
    }

    @Test func parserIsPure() async throws {
        let app = AppRecord(
            id: "1234567890123456", secret: "s", clientToken: "c", name: "A", redirectURIs: ["https://a/cb"],
            createdAt: Date(timeIntervalSince1970: 0))
        func parse(_ kind: SocialDialogKind, _ query: String) async throws -> SocialDialogRequest.Parsed {
            try await SocialDialogRequest.parse(kind: kind, query: query, findApp: { $0 == app.id ? app : nil })
        }
        #expect(try await parse(.feed, "redirect_uri=https%3A%2F%2Fa%2Fcb") == .problem(.missingClientID))
        #expect(try await parse(.feed, "app_id=1234567890123456") == .problem(.missingRedirectURI))
        #expect(try await parse(.feed, "app_id=%ZZ") == .problem(.malformedQuery))
        guard
            case .ok(let feed) = try await parse(
                .feed, "client_id=1234567890123456&redirect_uri=https%3A%2F%2Fa%2Fcb&link=https%3A%2F%2Fx.test")
        else {
            Issue.record("expected ok"); return
        }
        #expect(feed.link == "https://x.test")
        #expect(feed.posted(postID: "1_2") == "https://a/cb?post_id=1_2#_=_")
        #expect(
            try await parse(
                .apprequests,
                "app_id=1234567890123456&redirect_uri=https%3A%2F%2Fa%2Fcb&message=m&data="
                    + String(repeating: "d", count: 256))
                == .invalid(
                    redirectURI: "https://a/cb", code: 100, message: "data is too long (255 characters at most)"))
        #expect(
            try await parse(.apprequests, "app_id=1234567890123456&redirect_uri=https%3A%2F%2Fa%2Fcb&message=m&to=1,x")
                == .invalid(
                    redirectURI: "https://a/cb", code: 100, message: "to must be a comma-separated list of user ids"))
        guard
            case .ok(let requests) = try await parse(
                .apprequests, "app_id=1234567890123456&redirect_uri=https%3A%2F%2Fa%2Fcb&message=m&to=1,2")
        else {
            Issue.record("expected ok"); return
        }
        #expect(requests.to == ["1", "2"])
        #expect(requests.sent(requestID: "9", to: ["1", "2"]) == "https://a/cb?request=9&to%5B0%5D=1&to%5B1%5D=2#_=_")
    }
}
