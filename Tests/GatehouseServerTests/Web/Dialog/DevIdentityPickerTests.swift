import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// "Who do you want to be?" on the dialog's login page (development mode only).
@Suite struct DevIdentityPickerTests {
    static func dialog(_ server: TestServer, scope: String = "email") -> String {
        "/dialog/oauth?"
            + FormEncoding.encode([
                ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("scope", scope),
                ("state", "s1"),
            ])
    }

    @Test func pickingAPersonLogsInWithoutAPassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let login = try await browser.get(Self.dialog(server))
            #expect(login.text.contains(#"<h2 id="picker-title">Who do you want to be?</h2>"#))
            #expect(login.text.contains(#"data-email="bob@example.com""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: login.text))
            let dialog = try #require(Browser.hiddenValue("dialog", in: login.text))
            let picked = try await browser.post(
                "/dialog/oauth/pick", form: [("csrf_token", csrf), ("dialog", dialog), ("user_id", server.bob.id)])
            #expect(picked.status == .seeOther)
            let consent = try await browser.get(Browser.relative(picked.location ?? ""))
            #expect(consent.text.contains(#"<p class="name">Bob Brown</p>"#))
            // Without the CSRF token the pick is refused.
            let forged = try await Browser(client).post(
                "/dialog/oauth/pick", form: [("dialog", dialog), ("user_id", server.alice.id)])
            #expect(forged.status == .forbidden)
        }
    }

    @Test func creatingATestUserGrantsItsPermissionsAndContinues() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let login = try await browser.get(Self.dialog(server))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: login.text))
            let dialog = try #require(Browser.hiddenValue("dialog", in: login.text))
            let made = try await browser.post(
                "/dialog/oauth/test-user",
                form: [("csrf_token", csrf), ("dialog", dialog), ("name", "Tina Test"), ("permission", "email")])
            #expect(made.status == .seeOther)
            // Everything asked for is already granted, so the dialog completes at once.
            let done = try await browser.get(Browser.relative(made.location ?? ""))
            #expect(done.status == .found)
            #expect(done.location?.hasPrefix(TestServer.redirectURI + "?code=") == true)
            let testUsers = try await server.services.storage.users.testUsers(appID: server.app.id)
            #expect(testUsers.map(\.fullName) == ["Tina Test"])
            #expect(testUsers.first?.email.hasSuffix("_test@tfbnw.net") == true)
        }
    }

    @Test func reauthenticationAndProductionModeOfferNoPicker() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let page = try await Browser(client).get(Self.dialog(server) + "&auth_type=reauthenticate")
            #expect(!page.text.contains("Who do you want to be?"))
        }
        let production = try await TestServer.make(mode: .production)
        try await production.run { client in
            let page = try await Browser(client).get(Self.dialog(production))
            #expect(page.status == .ok)
            #expect(!page.text.contains("Who do you want to be?"))
            let pick = try await client.execute(
                uri: "/dialog/oauth/pick", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "user_id=x"))
            #expect(pick.status == .notFound)
            // The console and the admin API are closed without an admin login (AdminGate).
            let console = try await client.execute(uri: "/console", method: .get)
            #expect(console.status == .seeOther)
            #expect(console.headers[.location] == "/console/login?next=%2Fconsole")
            #expect(try await client.execute(uri: "/admin/api/v1/clock", method: .get).status == .unauthorized)
        }
    }
}
