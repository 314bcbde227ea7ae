import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 18: the CSRF token is bound to the browser session, so a CSRF cookie planted by someone
/// else (a sibling subdomain, a plain-http hop) is useless; on secure origins the cookie is `__Host-` prefixed so
/// it cannot be planted in the first place.
@Suite struct CSRFBindingTests {
    @Test func aPlantedCSRFCookieCannotForgeAFormForALoggedInPerson() async throws {
        let server = try await TestServer.make()
        _ = try await server.token(for: server.alice)
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/login")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let login = try await browser.post(
                "/login", form: [("csrf_token", csrf), ("email", "alice@example.com"), ("password", "alice-password")])
            #expect(login.status == .seeOther)
            // The attacker plants a CSRF cookie whose value they know, and posts a form carrying it.
            let planted = String(repeating: "A", count: 43)
            browser.plantCookie(name: "gh_csrf", value: planted)
            let forged = try await browser.post(
                "/settings/apps/remove", form: [("csrf_token", planted), ("app_id", server.app.id)])
            #expect(forged.status == .forbidden)
            #expect(forged.text.contains("This form has expired"))
            #expect(try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id) != nil)
        }
    }

    @Test func secureOriginsUseAHostPrefixedCSRFCookie() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
        try await server.run { client in
            let page = try await client.execute(uri: "/console/login", method: .get)
            let cookie = try #require(page.headers[.setCookie])
            #expect(cookie.hasPrefix("__Host-gh_csrf="))
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.lowercased().contains("domain="))
        }
    }
}
