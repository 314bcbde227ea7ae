import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `GET /fql?q=…` over HTTP: Facebook's `{"data":[…]}` shape, the Graph permission rules, 601/602/604 errors, batch.
@Suite struct FQLEndpointTests {
    static func uri(_ q: String, _ token: String) -> String {
        "/v27.0/fql?" + FormEncoding.encode([("q", q), ("access_token", token)])
    }

    @Test func selectsMeWithTheGraphFieldRules() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        let me = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(
                uri: Self.uri("SELECT uid, name, email, birthday_date, pic_square FROM user WHERE uid = me()", token),
                method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/json; charset=UTF-8")
            // birthday_date needs user_birthday, which was not granted: the column is there, empty.
            #expect(
                r.text
                    == #"{"data":[{"uid":"\#(me)","name":"Alice Anders","email":"alice@example.com","#
                    + #""birthday_date":null,"pic_square":"http://gatehouse.test/pictures/\#(server.app.id)/\#(me)?size=50"}]}"#
            )
        }
    }

    @Test func friendsWhoUseTheAppThroughTheSubquery() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email", "user_friends"])
        _ = try await server.token(for: server.bob, granted: ["public_profile", "email"])
        let bob = try await server.scopedID(server.bob)
        let me = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(
                uri: Self.uri(
                    "select uid, first_name, email from user where uid in (select uid2 from friend where uid1 = me())",
                    token), method: .get)
            // Alice's token cannot read Bob's email, exactly as GET /{bob}?fields=email.
            #expect(r.text == #"{"data":[{"uid":"\#(bob)","first_name":"Bob","email":null}]}"#)
            let pairs = try await client.execute(
                uri: Self.uri("SELECT uid1, uid2 FROM friend WHERE uid1 = me()", token), method: .get)
            #expect(pairs.text == #"{"data":[{"uid1":"\#(me)","uid2":"\#(bob)"}]}"#)
        }
    }

    @Test func friendsNeedUserFriendsAsOnTheGraph() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let r = try await client.execute(
                uri: Self.uri("SELECT name FROM user WHERE uid IN (SELECT uid2 FROM friend WHERE uid1 = me())", token),
                method: .get)
            #expect(r.status == .forbidden)
            #expect(
                r.text
                    == #"{"error":{"message":"(#200) Requires extended permission: user_friends","type":"OAuthException","code":200}}"#
            )
        }
    }

    @Test func permissionsTableAnswersOneOrZero() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "email"], declined: ["user_birthday"])
        try await server.run { client in
            let r = try await client.execute(
                uri: Self.uri("SELECT public_profile, email, user_birthday FROM permissions WHERE uid = me()", token),
                method: .get)
            #expect(r.text == #"{"data":[{"public_profile":1,"email":1,"user_birthday":0}]}"#)
        }
    }

    @Test func errorsHaveFacebooksCodesAndMessages() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let parse = try await client.execute(
                uri: Self.uri("SELECT uid FRO user WHERE uid = me()", token), method: .get)
            #expect(parse.status == .badRequest)
            #expect(
                parse.text
                    == #"{"error":{"message":"(#601) Parser error: unexpected 'FRO' at position 11.","type":"OAuthException","code":601}}"#
            )
            let member = try await client.execute(
                uri: Self.uri("SELECT password FROM user WHERE uid = me()", token), method: .get)
            #expect(
                member.text
                    == #"{"error":{"message":"(#602) password is not a member of the user table.","type":"OAuthException","code":602}}"#
            )
            let table = try await client.execute(
                uri: Self.uri("SELECT uid FROM users WHERE uid = me()", token), method: .get)
            #expect(table.json["error"]?["code"]?.intValue == 601)
            let unindexed = try await client.execute(
                uri: Self.uri("SELECT uid FROM user WHERE name = 'Alice'", token), method: .get)
            #expect(unindexed.json["error"]?["code"]?.intValue == 604)
            let noToken = try await client.execute(
                uri: "/fql?q=SELECT%20uid%20FROM%20user%20WHERE%20uid%3Dme()", method: .get)
            #expect(noToken.json["error"]?["code"]?.intValue == 104)
            let app = try await client.execute(
                uri: Self.uri("SELECT uid FROM user WHERE uid = me()", server.appToken), method: .get)
            #expect(app.json["error"]?["code"]?.intValue == 2500)
        }
    }

    @Test func runsInsideABatch() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let batch =
            #"[{"method":"GET","relative_url":"fql?q=SELECT%20first_name%20FROM%20user%20WHERE%20uid%3Dme()"},"#
            + #"{"method":"GET","relative_url":"fql?q=SELECT"}]"#
        try await server.run { client in
            let r = try await client.execute(
                uri: "/v27.0/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: FormEncoding.encode([("access_token", token), ("batch", batch)])))
            let items = try #require(r.json.arrayValue)
            #expect(items[0]["body"]?.stringValue == #"{"data":[{"first_name":"Alice"}]}"#)
            #expect(items[1]["code"]?.intValue == 400)
            #expect(
                items[1]["body"]?.stringValue
                    == #"{"error":{"message":"(#601) Parser error: unexpected end of query.","type":"OAuthException","code":601}}"#
            )
        }
    }

    /// Random text through HTTP: every answer is a 200 with data or a Graph error; the server never fails.
    @Test func fuzzOverHTTPAnswersDataOrAnError() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "user_friends"])
        var rng = SplitMix64(seed: 0xF0_F0)
        let pieces = [
            "SELECT", "uid", "name", "FROM", "user", "friend", "permissions", "WHERE", "uid1", "uid2", "=", "IN", "(",
            ")", "me()", ",", "'", "1", "email", "*",
        ]
        let queries = (0..<150).map { _ in
            (0..<Int.random(in: 0...14, using: &rng)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
                .joined(separator: " ")
        }
        try await server.run { client in
            for q in queries {
                let r = try await client.execute(uri: Self.uri(q, token), method: .get)
                if r.status == .ok {
                    #expect(r.json["data"]?.arrayValue != nil, "query \(q)")
                } else {
                    let code = r.json["error"]?["code"]?.intValue
                    #expect([601, 602, 604, 200].contains(code ?? 0), "query \(q) gave \(r.text)")
                }
            }
        }
    }
}
