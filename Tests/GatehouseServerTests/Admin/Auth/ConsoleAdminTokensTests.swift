import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 28, item 2: the console lists, creates (showing the value once) and revokes admin tokens behind its CSRF
/// check, and shows the audit log with the administrator who made each change.
@Suite struct ConsoleAdminTokensTests {
    @Test func anAdministratorCreatesSeesOnceAndRevokesATokenAndTheAuditLogNamesThem() async throws {
        let server = try await AdminTokenAuthTests.production()
        try await AdminAccounts(services: server.services).create(
            email: "ops@example.com", password: "a long admin password")
        try await server.run { client in
            let browser = Browser(client)
            let login = try await browser.get("/console/login")
            let loginCSRF = try #require(Browser.hiddenValue("csrf_token", in: login.text))
            _ = try await browser.post(
                "/console/login",
                form: [("csrf_token", loginCSRF), ("email", "ops@example.com"), ("password", "a long admin password")])

            let page = try await browser.get("/console/admin-tokens")
            #expect(page.status == .ok)
            #expect(page.text.contains("No admin tokens."))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))

            // Without the CSRF token nothing is made.
            let forged = try await browser.post("/console/admin-tokens", form: [("name", "forged")])
            #expect(forged.status == .forbidden)
            #expect(try await server.services.storage.admins.listTokens().isEmpty)

            let made = try await browser.post(
                "/console/admin-tokens", form: [("csrf_token", csrf), ("name", "ci"), ("read_only", "on")])
            #expect(made.status == .ok)
            let stored = try #require(try await server.services.storage.admins.listTokens().first)
            #expect(stored.name == "ci")
            #expect(stored.readOnly)
            let token = try #require(
                made.text.firstMatch(of: /id="new-admin-token">(gha_[A-Za-z0-9]{43})</).map { String($0.1) })
            #expect(SecretHash.sha256Hex(token) == stored.tokenHash)
            let api = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(api.status == .ok)

            // Shown once: the list shows only the prefix.
            let again = try await browser.get("/console/admin-tokens")
            #expect(!again.text.contains(token))
            #expect(again.text.contains(stored.displayPrefix + "…"))
            #expect(again.text.contains("read-only"))

            let revoked = try await browser.post(
                "/console/admin-tokens/\(stored.id)/revoke", form: [("csrf_token", csrf)])
            #expect(revoked.status == .seeOther)
            #expect(revoked.location == "/console/admin-tokens?notice=revoked")
            #expect(
                try await client.execute(
                    uri: "/admin/api/v1/admin-tokens", method: .get, headers: [.authorization: "Bearer \(token)"]
                ).status == .unauthorized)

            let audit = try await server.services.storage.admins.audit(before: nil, limit: 10)
            #expect(
                audit.map { "\($0.method) \($0.route) \($0.target ?? "-") \($0.status)" } == [
                    "POST /console/admin-tokens/{id}/revoke \(stored.id) 303", "POST /console/admin-tokens - 200",
                ])
            #expect(Set(audit.map(\.actorName)) == ["ops@example.com"])
            let shown = try await browser.get("/console/admin-tokens")
            #expect(shown.text.contains("POST /console/admin-tokens/{id}/revoke"))
            #expect(shown.text.contains("ops@example.com"))
        }
    }
}
