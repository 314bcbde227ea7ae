import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Seed 002's FQL call: `GET /method/fql.query?query=…&format=json` answers a bare array, and its `quotes`
/// column is the profile's quotes, empty until set in the console.
@Suite struct FQLRESTAndQuotesTests {
    static let seedQuery = "SELECT quotes, uid, name FROM user WHERE uid = me()"

    static func restURI(_ query: String, _ token: String, version: String = "") -> String {
        version + "/method/fql.query?"
            + FormEncoding.encode([("query", query), ("format", "json"), ("access_token", token)])
    }

    @Test func restFormAnswersABareArrayWithEmptyQuotesByDefault() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let me = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(uri: Self.restURI(Self.seedQuery, token), method: .get)
            #expect(r.status == .ok)
            #expect(r.text == #"[{"quotes":"","uid":"\#(me)","name":"Alice Anders"}]"#)
            // The SDK's method name is `FQL.query`; the version prefix is accepted too.
            let upper = try await client.execute(
                uri: Self.restURI(Self.seedQuery, token, version: "/v27.0").replacingOccurrences(
                    of: "fql.query", with: "FQL.query"), method: .get)
            #expect(upper.text == r.text)
            let bad = try await client.execute(
                uri: Self.restURI("SELECT nope FROM user WHERE uid = me()", token), method: .get)
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains("(#602) nope is not a member of the user table."))
        }
    }

    @Test func quotesEditedInTheConsoleReachFQLAndTheGraph() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/users/\(server.alice.id)")
            #expect(page.text.contains(#"name="quotes""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let saved = try await browser.post(
                "/console/users/\(server.alice.id)",
                form: [
                    ("csrf_token", csrf), ("first_name", "Alice"), ("last_name", "Anders"),
                    ("email", "alice@example.com"),
                    ("quotes", "Stay hungry, stay foolish."),
                ])
            #expect(saved.status == .seeOther)
            #expect(
                try await server.services.storage.users.find(id: server.alice.id)?.quotes
                    == "Stay hungry, stay foolish.")
            let fql = try await client.execute(
                uri: Self.restURI("SELECT quotes FROM user WHERE uid = me()", token), method: .get)
            #expect(fql.text == #"[{"quotes":"Stay hungry, stay foolish."}]"#)
            let graph = try await client.execute(
                uri: "/v27.0/me?" + FormEncoding.encode([("fields", "quotes"), ("access_token", token)]), method: .get)
            #expect(graph.text.contains(#""quotes":"Stay hungry, stay foolish.""#))
        }
    }

    @Test func severalIDsAtTheRootAndUnderAVersion() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let me = try await server.scopedID(server.alice)
        try await server.run { client in
            for prefix in ["/", "/v27.0/"] {
                let uri =
                    prefix + "?"
                    + FormEncoding.encode([
                        ("ids", "\(me),\(server.app.id)"), ("fields", "id,name"), ("access_token", token),
                    ])
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .ok)
                #expect(
                    r.text
                        == #"{"\#(me)":{"id":"\#(me)","name":"Alice Anders"},"#
                        + #""\#(server.app.id)":{"name":"\#(server.app.name)","id":"\#(server.app.id)"}}"#
                )
            }
            // Bob has never used the app: he has no id here, exactly like an id that does not exist.
            let missing = try await client.execute(
                uri: "/?" + FormEncoding.encode([("ids", "\(me),424242424242"), ("access_token", token)]), method: .get)
            #expect(missing.status == .badRequest)
            #expect(
                missing.text.contains(
                    #""message":"(#803) Some of the aliases you requested do not exist: 424242424242""#))
            #expect(missing.text.contains(#""code":803"#))
            // A field the token may not read fails the call as GET /{id} would.
            let denied = try await client.execute(
                uri: "/?"
                    + FormEncoding.encode([("ids", me), ("fields", "nonexistent_field"), ("access_token", token)]),
                method: .get)
            #expect(denied.status == .badRequest)
            #expect(
                denied.text.contains("(#100) Tried accessing nonexisting field (nonexistent_field) on node type (User)")
            )
        }
    }
}
