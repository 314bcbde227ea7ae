import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct GraphEdgeTests {
    @Test func permissionsListRevokeOneAndRemoveTheApp() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "email"], declined: ["user_friends"])
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let list = try await client.execute(uri: "/me/permissions?access_token=\(token)", method: .get)
            #expect(
                list.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","#
                    + #""status":"granted"},{"permission":"user_friends","status":"declined"}]}"#
            )
            let revoke = try await client.execute(
                uri: "/v21.0/me/permissions/email?access_token=\(token)", method: .delete)
            #expect(revoke.text == #"{"success":true}"#)
            let after = try await client.execute(uri: "/me?fields=email,name&access_token=\(token)", method: .get)
            #expect(after.text == #"{"name":"Alice Anders"}"#)
            let list2 = try await client.execute(uri: "/\(scoped)/permissions?access_token=\(token)", method: .get)
            #expect(list2.json["data"]?.arrayValue?.contains(["permission": "email", "status": "declined"]) == true)

            let remove = try await client.execute(
                uri: "/\(scoped)/permissions", method: .delete,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "access_token=\(token)"))
            #expect(remove.text == #"{"success":true}"#)
            let dead = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(dead.json["error"]?["code"]?.intValue == 190)
            #expect(dead.json["error"]?["error_subcode"]?.intValue == 458)
            #expect(
                dead.json["error"]?["message"]?.stringValue
                    == "Error validating access token: The user has not authorized application \(server.app.id).")
            #expect(server.notifier.removed.map(\.scopedUserID) == [scoped])
        }
    }

    @Test func permissionsExpireWithDataAccess() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "email"], lifetime: 200 * 86400)
        server.clock.advance(by: 91 * 86400)
        try await server.run { client in
            let list = try await client.execute(uri: "/me/permissions?access_token=\(token)", method: .get)
            #expect(
                list.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","status":"expired"}]}"#
            )
            let me = try await client.execute(uri: "/me?fields=name,email&access_token=\(token)", method: .get)
            #expect(me.text == #"{"name":"Alice Anders"}"#)
        }
    }

    @Test func friendsWhoUseTheAppWithPagingThatKeepsTheToken() async throws {
        let server = try await TestServer.make()
        var friends: [UserRecord] = [server.bob]
        for i in 0..<3 {
            let u = try await server.services.accounts.createUser(
                NewUser(email: "f\(i)@example.com", password: "password\(i)", firstName: "F\(i)", lastName: "Friend"))
            try await server.services.storage.friendships.befriend(server.alice.id, u.id, at: server.clock.now())
            friends.append(u)
        }
        let outsider = try await server.services.accounts.createUser(
            NewUser(email: "o@example.com", password: "password", firstName: "Out", lastName: "Sider"))
        try await server.services.storage.friendships.befriend(server.alice.id, outsider.id, at: server.clock.now())
        for f in friends { _ = try await server.token(for: f) }
        let token = try await server.token(for: server.alice, granted: ["public_profile", "user_friends"])
        let plain = try await server.token(for: server.bob)
        try await server.run { client in
            let page1 = try await client.execute(uri: "/v21.0/me/friends?limit=2&access_token=\(token)", method: .get)
            #expect(page1.status == .ok)
            let data = page1.json["data"]?.arrayValue ?? []
            #expect(data.count == 2)
            #expect(data.first?["name"]?.stringValue == "Bob Brown")
            #expect(data.first?.objectValue?.pairs.map(\.0) == ["name", "id"])
            #expect(page1.json["summary"]?["total_count"]?.intValue == 5)
            let next = try #require(page1.json["paging"]?["next"]?.stringValue)
            #expect(next.hasPrefix("http://gatehouse.test/v21.0/"))
            #expect(next.contains("access_token=\(token)"))
            let page2 = try await client.execute(uri: Browser.relative(next), method: .get)
            #expect(
                page2.json["data"]?.arrayValue?.map { $0["name"]?.stringValue ?? "" } == ["F1 Friend", "F2 Friend"])
            #expect(page2.json["paging"]?["next"] == nil)
            #expect(page2.json["paging"]?["previous"] != nil)

            let nested = try await client.execute(
                uri: "/me?fields=friends.limit(1)%7Bname%7D&access_token=\(token)", method: .get)
            #expect(nested.json["friends"]?["data"]?.arrayValue?.count == 1)
            #expect(nested.json["friends"]?["data"]?[0]?.objectValue?.pairs.map(\.0) == ["name"])

            let denied = try await client.execute(uri: "/me/friends?access_token=\(plain)", method: .get)
            #expect(denied.status == .forbidden)
            #expect(
                denied.text
                    == #"{"error":{"message":"(#200) Requires extended permission: user_friends","type":"OAuthException","code":200}}"#
            )
        }
    }

    @Test func batchRunsEntriesWithTheirOwnTokens() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        let bob = try await server.token(for: server.bob)
        let batch =
            #"[{"method":"GET","relative_url":"me"},{"method":"GET","relative_url":"me?fields=first_name&"#
            + #"access_token=\#(bob)"},{"method":"GET","relative_url":"me?fields=bogus"},{"method":"GET","#
            + #""name":"who","relative_url":"me?fields=id"},{"method":"GET","#
            + #""relative_url":"{result=who:$.id}?fields=first_name","depends_on":"who"}]"#
        try await server.run { client in
            let r = try await client.execute(
                uri: "/v21.0/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(
                    string: FormEncoding.encode([
                        ("access_token", alice), ("batch", batch), ("include_headers", "false"),
                    ])))
            #expect(r.status == .ok)
            let items = try #require(r.json.arrayValue)
            #expect(items.count == 5)
            #expect(items[0]["code"]?.intValue == 200)
            #expect(items[0]["headers"]?[0]?["name"]?.stringValue == "Content-Type")
            #expect(
                try JSONValue.parse(Data(items[0]["body"]!.stringValue!.utf8))["name"]?.stringValue == "Alice Anders")
            #expect(items[1]["body"]?.stringValue == #"{"first_name":"Bob"}"#)
            #expect(items[2]["code"]?.intValue == 400)
            #expect(items[3] == .null)
            #expect(items[4]["body"]?.stringValue == #"{"first_name":"Alice"}"#)

            let tooMany =
                "[" + Array(repeating: #"{"method":"GET","relative_url":"me"}"#, count: 51).joined(separator: ",") + "]"
            let big = try await client.execute(
                uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: FormEncoding.encode([("access_token", alice), ("batch", tooMany)])))
            #expect(big.status == .badRequest)
            #expect(big.json["error"]?["code"]?.intValue == 1)
            #expect(
                big.json["error"]?["message"]?.stringValue
                    == "(#1) Too many requests in batch message. Maximum batch size is 50")
            let notArray = try await client.execute(
                uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "batch=%7B%7D&access_token=\(alice)"))
            #expect(notArray.json["error"]?["code"]?.intValue == 100)
        }
    }

    @Test func testUsersThroughTheGraphAPI() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let app = server.app
            let created = try await client.execute(
                uri:
                    "/v21.0/\(app.id)/accounts/test-users?installed=true&permissions=email,user_friends&"
                    + "name=Tess%20Tester&access_token=\(server.appToken)",
                method: .post)
            #expect(created.status == .ok)
            #expect(
                created.json.objectValue?.pairs.map(\.0) == ["id", "access_token", "login_url", "email", "password"])
            let token = try #require(created.json["access_token"]?.stringValue)
            let me = try await client.execute(uri: "/me?fields=name,email&access_token=\(token)", method: .get)
            #expect(me.json["name"]?.stringValue == "Tess Tester")
            #expect(me.json["email"]?.stringValue == created.json["email"]?.stringValue)
            let second = try await client.execute(
                uri: "/\(app.id)/accounts/test-users?access_token=\(server.appToken)", method: .post)
            let firstID = created.json["id"]!.stringValue!, secondID = second.json["id"]!.stringValue!
            let friend = try await client.execute(
                uri: "/\(firstID)/friends/\(secondID)?access_token=\(token)", method: .post)
            #expect(friend.text == #"{"success":true}"#)
            // A request until the other side asks back (issue 41).
            let secondToken = second.json["access_token"]!.stringValue!
            let confirmed = try await client.execute(
                uri: "/\(secondID)/friends/\(firstID)?access_token=\(secondToken)", method: .post)
            #expect(confirmed.text == #"{"success":true}"#)
            #expect(
                try await server.services.storage.friendships.friends(
                    of: server.services.storage.users.userID(appID: app.id, scopedID: firstID)!
                ).count == 1)

            let list = try await client.execute(
                uri: "/\(app.id)/accounts/test-users?limit=1&access_token=\(server.appToken)", method: .get)
            #expect(list.json["data"]?.arrayValue?.count == 1)
            #expect(list.json["data"]?[0]?["id"]?.stringValue == firstID)
            #expect(list.json["paging"]?["next"]?.stringValue?.contains("access_token=") == true)

            // The login_url only shows a confirmation page; the login itself is a CSRF-checked POST (issue 12, finding 14).
            let browser = Browser(client)
            let confirm = try await browser.get(Browser.relative(created.json["login_url"]!.stringValue!))
            #expect(confirm.status == .ok)
            #expect(confirm.headers[.setCookie]?.hasPrefix("__Host-gh_session=") != true)
            let form = ["csrf_token", "app_id", "user_id", "expires", "sig"].map {
                ($0, Browser.hiddenValue($0, in: confirm.text) ?? "")
            }
            let login = try await browser.post("/testuser/login", form: form)
            #expect(login.status == .seeOther)
            #expect(login.headers[.setCookie]?.hasPrefix("__Host-gh_session=") == true)

            let userToken = try await client.execute(
                uri: "/\(app.id)/accounts/test-users?access_token=\(token)", method: .get)
            #expect(userToken.json["error"]?["code"]?.intValue == 15)
            let deleted = try await client.execute(uri: "/\(secondID)?access_token=\(server.appToken)", method: .delete)
            #expect(deleted.text == #"{"success":true}"#)
            let gone = try await client.execute(uri: "/\(secondID)?access_token=\(server.appToken)", method: .get)
            #expect(gone.json["error"]?["error_subcode"]?.intValue == 33)
            let notTest = try await client.execute(
                uri: "/\(try await server.scopedID(server.alice))?access_token=\(server.appToken)", method: .delete)
            #expect(notTest.json["error"]?["code"]?.intValue == 2903)
        }
    }
}
