import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 27, finding 5: the session cookies carry the `__Host-` prefix wherever they are `Secure` (so a sibling
/// subdomain cannot plant one), and a request carrying two session cookies of one name has no session at all.
@Suite struct SessionCookiePrefixTests {
    /// The `Set-Cookie` field that sets `name`, among all the response's fields.
    static func setCookie(_ response: TestResponse, named name: String) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }
    }

    @Test func productionLoginsSetHostPrefixedSessionCookies() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
        try await AdminAccounts(services: server.services).create(
            email: "ops@example.com", password: "a long admin password")
        try await server.run { client in
            let person = try await PasswordForm.settings.submit(
                Browser(client), server: server, email: "alice@example.com", password: "alice-password")
            #expect(person.status == .seeOther)
            let session = try #require(Self.setCookie(person, named: "__Host-gh_session"))
            #expect(session.contains("; Secure"))
            #expect(session.contains("; Path=/;") || session.hasSuffix("; Path=/"))
            #expect(!session.lowercased().contains("domain="))
            #expect(person.headers[values: .setCookie].allSatisfy { !$0.hasPrefix("gh_session=") })

            let browser = Browser(client)
            let page = try await browser.get("/console/login")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let admin = try await browser.post(
                "/console/login",
                form: [("csrf_token", csrf), ("email", "ops@example.com"), ("password", "a long admin password")])
            #expect(admin.status == .seeOther)
            let console = try #require(Self.setCookie(admin, named: "__Host-gh_admin"))
            #expect(console.contains("; Secure"))
            #expect(console.contains("; Path=/;") || console.hasSuffix("; Path=/"))
            #expect(!console.lowercased().contains("domain="))
        }
    }

    /// On plain-http loopback development the cookie cannot be `Secure`, so it keeps its plain name; two of them
    /// (the victim's own and one planted by an attacker, whichever comes first) are no session.
    @Test func twoSessionCookiesOfOneNameAreNoSession() async throws {
        let server = try await TestServer.make(configure: { $0.publicURL = "http://127.0.0.1:8080" })
        try await server.run { client in
            let victim = Browser(client), attacker = Browser(client)
            _ = try await PasswordForm.settings.submit(
                victim, server: server, email: "alice@example.com", password: "alice-password")
            _ = try await PasswordForm.settings.submit(
                attacker, server: server, email: "bob@example.com", password: "bob-password")
            let alice = try #require(victim.cookies["gh_session"])
            let bob = try #require(attacker.cookies["gh_session"])
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server)

            // One cookie: the dialog knows the person and asks for consent.
            let own = try await client.execute(uri: dialog, method: .get, headers: [.cookie: "gh_session=\(alice)"])
            #expect(own.status == .ok)
            #expect(own.text.contains("is requesting access to:"))

            // The planted cookie first (longer path), the victim's second; also split over two Cookie fields.
            var split = HTTPFields()
            split.append(HTTPField(name: .cookie, value: "gh_session=\(bob)"))
            split.append(HTTPField(name: .cookie, value: "gh_session=\(alice)"))
            for headers in [[.cookie: "gh_session=\(bob); gh_session=\(alice)"], split] as [HTTPFields] {
                let planted = try await client.execute(uri: dialog, method: .get, headers: headers)
                #expect(planted.status == .ok)
                #expect(!planted.text.contains("is requesting access to:"))
                #expect(planted.text.contains(#"name="password""#))
            }
        }
    }

    @Test func twoConsoleSessionCookiesAreNoConsoleSession() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
        try await AdminAccounts(services: server.services).create(
            email: "ops@example.com", password: "a long admin password")
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/login")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            _ = try await browser.post(
                "/console/login",
                form: [("csrf_token", csrf), ("email", "ops@example.com"), ("password", "a long admin password")])
            let secret = try #require(browser.cookies["__Host-gh_admin"])
            let one = try await client.execute(
                uri: "/console/apps", method: .get, headers: [.cookie: "__Host-gh_admin=\(secret)"])
            #expect(one.location?.hasPrefix("/console/login") != true)
            let two = try await client.execute(
                uri: "/console/apps", method: .get,
                headers: [.cookie: "__Host-gh_admin=planted; __Host-gh_admin=\(secret)"])
            #expect(two.status == .seeOther)
            #expect(two.location == "/console/login?next=%2Fconsole%2Fapps")
        }
    }
}
