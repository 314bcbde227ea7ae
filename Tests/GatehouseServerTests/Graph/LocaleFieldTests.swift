import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 31, item 1: `locale`, added to the field table only, reaches the Graph API, FQL and the console.
/// Issue 41, item 4: `en_US` for everyone who never set one, as Facebook answers it with the public profile.
@Suite struct LocaleFieldTests {
    static func me(_ fields: String, _ token: String) -> String {
        "/v21.0/me?" + FormEncoding.encode([("fields", fields), ("access_token", token)])
    }

    static func fql(_ query: String, _ token: String) -> String {
        "/method/fql.query?" + FormEncoding.encode([("query", query), ("format", "json"), ("access_token", token)])
    }

    @Test func localeIsEnUSUntilSetThenGraphAndFQLAnswerIt() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let unset = try await client.execute(uri: Self.me("id,locale", token), method: .get)
            #expect(unset.status == .ok)
            #expect(unset.text == #"{"id":"\#(scoped)","locale":"en_US"}"#)
            let unsetFQL = try await client.execute(
                uri: Self.fql("SELECT locale FROM user WHERE uid = me()", token), method: .get)
            #expect(unsetFQL.text == #"[{"locale":"en_US"}]"#)
            // The app's token reads the person's node the same way.
            let byApp = try await client.execute(
                uri: "/v21.0/\(scoped)?"
                    + FormEncoding.encode([("fields", "locale"), ("access_token", server.appToken)]),
                method: .get)
            #expect(byApp.text == #"{"locale":"en_US"}"#)
            // Nothing is stored for the default: setting it later is what changes the answer.
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.profileText["locale"] == nil)

            let browser = Browser(client)
            let page = try await browser.get("/console/users/\(server.alice.id)")
            #expect(page.text.contains(#"name="locale""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let form = [
                ("csrf_token", csrf), ("first_name", "Alice"), ("last_name", "Anders"), ("email", "alice@example.com"),
            ]
            let bad = try await browser.post("/console/users/\(server.alice.id)", form: form + [("locale", "English")])
            #expect(bad.text.contains("Locale must be a language and a country, as en_US."))
            let saved = try await browser.post("/console/users/\(server.alice.id)", form: form + [("locale", "pt_BR")])
            #expect(saved.status == .seeOther)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.profileText["locale"] == "pt_BR")
            let graph = try await client.execute(uri: Self.me("locale", token), method: .get)
            #expect(graph.text == #"{"locale":"pt_BR"}"#)
            let fql = try await client.execute(
                uri: Self.fql("SELECT locale FROM user WHERE uid = me()", token), method: .get)
            #expect(fql.text == #"[{"locale":"pt_BR"}]"#)
        }
    }

    @Test func aTestUserIsCreatedWithALocaleOrEnUS() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let edge = "/v21.0/\(server.app.id)/accounts/test-users"
            var tokens: [String] = []
            for extra in [[("locale", "fr_FR")], []] {
                let created = try await client.execute(
                    uri: edge + "?" + FormEncoding.encode(extra + [("access_token", server.appToken)]), method: .post)
                tokens.append(try #require(created.json["access_token"]?.stringValue))
            }
            let french = try await client.execute(uri: Self.me("locale", tokens[0]), method: .get)
            #expect(french.text == #"{"locale":"fr_FR"}"#)
            let plain = try await client.execute(uri: Self.me("locale", tokens[1]), method: .get)
            #expect(plain.text == #"{"locale":"en_US"}"#)
        }
    }

    /// Facebook's Limited Login discovery document lists no locale claim, and neither does Gatehouse's.
    @Test func theDiscoveryDocumentListsNoLocaleClaim() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let discovery = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            let claims = try #require(discovery.json["claims_supported"]?.arrayValue)
            #expect(claims.contains("name"))
            #expect(!claims.contains("locale"))
        }
    }
}
