import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 31, item 1: `locale`, added to the field table only, reaches the Graph API, FQL and the console.
@Suite struct LocaleFieldTests {
    @Test func localeIsLeftOutUntilSetThenGraphAndFQLAnswerIt() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let unset = try await client.execute(
                uri: "/v21.0/me?" + FormEncoding.encode([("fields", "locale"), ("access_token", token)]), method: .get)
            #expect(unset.status == .ok)
            #expect(!unset.text.contains("locale"))
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
            let graph = try await client.execute(
                uri: "/v21.0/me?" + FormEncoding.encode([("fields", "locale"), ("access_token", token)]), method: .get)
            #expect(graph.text.contains(#""locale":"pt_BR""#))
            let fql = try await client.execute(
                uri: "/method/fql.query?"
                    + FormEncoding.encode([
                        ("query", "SELECT locale FROM user WHERE uid = me()"), ("format", "json"),
                        ("access_token", token),
                    ]),
                method: .get)
            #expect(fql.text == #"[{"locale":"pt_BR"}]"#)
        }
    }
}
