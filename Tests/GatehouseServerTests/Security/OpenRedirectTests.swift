import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 4: `next` can only name a page of this server. Browsers strip tabs and newlines and read
/// `\` as `/`, so `/\t/evil.example` would become `//evil.example`; every such trick falls back to the default.
@Suite struct OpenRedirectTests {
    /// Targets a browser would turn into another origin (or that are not pages of ours).
    static let sneaky = [
        "/\t/evil.example", "/\n/evil.example", "/\r/evil.example", "/ /evil.example", "/\u{0B}/evil.example",
        "/\u{00A0}/evil.example", "/\u{200B}/evil.example", "/\\/evil.example", "/\\evil.example", "//evil.example",
        "https://evil.example/", "javascript:alert(1)", "/settings/\t/../..//evil.example",
    ]

    @Test func loginRefusesNextWithControlOrWhitespaceCharacters() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for next in Self.sneaky {
                let browser = Browser(client)
                let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/login").text))
                let r = try await browser.post(
                    "/login",
                    form: [
                        ("csrf_token", csrf), ("next", next), ("email", "alice@example.com"),
                        ("password", "alice-password"),
                    ])
                #expect(r.status == .seeOther)
                #expect(r.location == "/settings/apps", "next \(next.debugDescription) led to \(r.location ?? "nil")")
            }
        }
    }

    @Test func logoutRefusesNextWithControlOrWhitespaceCharacters() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for next in Self.sneaky {
                let browser = Browser(client)
                let loginCSRF = try #require(
                    Browser.hiddenValue("csrf_token", in: try await browser.get("/login").text))
                _ = try await browser.post(
                    "/login",
                    form: [("csrf_token", loginCSRF), ("email", "alice@example.com"), ("password", "alice-password")])
                let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/account").text))
                let r = try await browser.post("/logout", form: [("csrf_token", csrf), ("next", next)])
                #expect(r.status == .seeOther)
                #expect(r.location == "/settings/apps", "next \(next.debugDescription) led to \(r.location ?? "nil")")
            }
        }
    }

    @Test func loginPageDoesNotCarryASneakyNextIntoItsForm() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let page = try await client.execute(uri: "/login?next=%2F%09%2Fevil.example", method: .get)
            #expect(Browser.hiddenValue("next", in: page.text) == "/settings/apps")
        }
    }

    @Test func consoleLoginRefusesNextWithATab() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
        try await AdminAccounts(services: server.services).create(
            email: "ops@example.com", password: "a long admin password")
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/console/login").text))
            let r = try await browser.post(
                "/console/login",
                form: [
                    ("csrf_token", csrf), ("next", "/console\t/../\t/evil.example"), ("email", "ops@example.com"),
                    ("password", "a long admin password"),
                ])
            #expect(r.status == .seeOther)
            #expect(r.location == "/console")
        }
    }
}
