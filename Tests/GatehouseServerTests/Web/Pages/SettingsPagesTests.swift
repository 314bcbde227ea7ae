import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `/settings/apps`: the person's own list of apps, removing a permission or an app, and logging out.
@Suite struct SettingsPagesTests {
    /// Logs Alice in through `/login` and returns the browser.
    static func loggedIn(_ client: any TestClientProtocol) async throws -> Browser {
        let browser = Browser(client)
        let page = try await browser.get("/login?next=/settings/apps")
        #expect(page.status == .ok)
        let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
        let done = try await browser.post(
            "/login",
            form: [
                ("csrf_token", csrf), ("next", "/settings/apps"), ("email", "alice@example.com"),
                ("password", "alice-password"),
            ])
        #expect(done.status == .seeOther)
        #expect(done.location == "/settings/apps")
        return browser
    }

    @Test func listsGrantsAndRemovesAPermissionThenTheApp() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "email", "user_friends"], declined: ["user_birthday"])
        try await server.run { client in
            let browser = try await Self.loggedIn(client)
            let page = try await browser.get("/settings/apps")
            #expect(page.status == .ok)
            #expect(page.headers[.init("X-Frame-Options")!] == "DENY")
            #expect(page.text.contains(#"<h2 id="app-\#(server.app.id)">Test App</h2>"#))
            #expect(page.text.contains("Added 15 Jan 2027 · last login 15 Jan 2027 · data access until 15 Apr 2027"))
            #expect(page.text.contains("Email address"))
            #expect(page.text.contains("Not allowed"))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))

            // A forged form (no CSRF token) changes nothing.
            let forged = try await browser.post("/settings/apps/remove", form: [("app_id", server.app.id)])
            #expect(forged.status == .forbidden)
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .ok)

            let revoked = try await browser.post(
                "/settings/apps/revoke",
                form: [("csrf_token", csrf), ("app_id", server.app.id), ("permission", "email")])
            #expect(revoked.status == .seeOther)
            #expect(revoked.location == "/settings/apps?notice=revoked")
            let grant = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            #expect(grant?.granted == ["public_profile", "user_friends"])
            #expect(grant?.declined == ["user_birthday", "email"])

            let removed = try await browser.post(
                "/settings/apps/remove", form: [("csrf_token", csrf), ("app_id", server.app.id)])
            #expect(removed.location == "/settings/apps?notice=removed")
            let me = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(me.json["error"]?["error_subcode"]?.intValue == 458)
            #expect(server.notifier.removed.map(\.appID) == [server.app.id])
            let after = try await browser.get("/settings/apps?notice=removed")
            #expect(after.text.contains("The app was removed. It can no longer see your information."))
            #expect(after.text.contains("You have not logged in to any apps."))

            let out = try await browser.post("/logout", form: [("csrf_token", csrf), ("next", "/settings/apps")])
            #expect(out.location == "/settings/apps")
            let gone = try await browser.get("/settings/apps")
            #expect(gone.status == .seeOther)
            #expect(gone.location == "/login?next=%2Fsettings%2Fapps")
        }
    }

    @Test func loginRefusesBadPasswordsAndForeignRedirects() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/login?next=https://evil.example/")
            #expect(Browser.hiddenValue("next", in: page.text) == "/settings/apps")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let wrong = try await browser.post(
                "/login", form: [("csrf_token", csrf), ("email", "alice@example.com"), ("password", "nope")])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("The email or password you entered is incorrect."))
            #expect(!wrong.text.contains("nope"))
            let sneaky = try await browser.post(
                "/login",
                form: [
                    ("csrf_token", csrf), ("next", "//evil.example"), ("email", "alice@example.com"),
                    ("password", "alice-password"),
                ])
            #expect(sneaky.location == "/settings/apps")
        }
        #expect(SettingsPages.safeNext("/console") == "/console")
        #expect(SettingsPages.safeNext("/\\evil") == "/settings/apps")
    }
}
