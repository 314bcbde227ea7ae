import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32 item 5: the person's own settings — sessions, password, two-factor off, account deletion.
@Suite struct SecuritySettingsTests {
    @Test func sessionsAreListedWithTheirBrowserAndCanBeLoggedOut() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let first = Browser(client), second = Browser(client)
            _ = try await TwoFactorLoginTests.logInToSettings(first)
            let page = try await TwoFactorLoginTests.logInToSettings(second)
            #expect(page.status == .ok)
            #expect(page.text.components(separatedBy: #"class="session""#).count == 3)
            #expect(page.text.contains("This browser"))
            let sessions = try await server.services.storage.sessionActivity?.list(userID: server.alice.id) ?? []
            #expect(sessions.count == 2)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            // Log the first browser out from the second.
            let firstID = try #require(
                sessions.first { $0.session.secretHash == SecretHash.sha256Hex(first.cookie("gh_session") ?? "") }?
                    .session.id)
            #expect(
                try await second.post(
                    "/settings/sessions/logout", form: [("csrf_token", "forged"), ("session_id", firstID)]
                ).status == .forbidden)
            let out = try await second.post(
                "/settings/sessions/logout", form: [("csrf_token", csrf), ("session_id", firstID)])
            #expect(out.location == "/settings/security?notice=logged-out")
            #expect(try await first.get("/settings/security").location == "/login?next=%2Fsettings%2Fsecurity")
            #expect(try await second.get("/settings/security").status == .ok)
        }
    }

    /// "Log out of all sessions" ends every other session of the person and keeps this browser, as Facebook does;
    /// the row's own Log out still ends this one.
    @Test func logOutOfAllSessionsKeepsThisBrowser() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let other = Browser(client), this = Browser(client), bob = Browser(client)
            _ = try await TwoFactorLoginTests.logInToSettings(other)
            let page = try await TwoFactorLoginTests.logInToSettings(this)
            let bobForm = try await bob.get("/login?next=%2Fsettings%2Fsecurity")
            _ = try await bob.post(
                "/login",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: bobForm.text) ?? ""),
                    ("next", "/settings/security"),
                    ("email", "bob@example.com"), ("password", "bob-password"),
                ])
            #expect(try await server.services.storage.sessionActivity?.list(userID: server.alice.id).count == 2)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            #expect(
                try await this.post("/settings/sessions/logout-all", form: [("csrf_token", "forged")]).status
                    == .forbidden)
            #expect(try await server.services.storage.sessionActivity?.list(userID: server.alice.id).count == 2)

            let all = try await this.post("/settings/sessions/logout-all", form: [("csrf_token", csrf)])
            #expect(all.status == .seeOther)
            #expect(all.location == "/settings/security?notice=logged-out-all")
            #expect(all.headers[.setCookie] == nil)
            let remaining = try await server.services.storage.sessionActivity?.list(userID: server.alice.id) ?? []
            #expect(remaining.map(\.session.secretHash) == [SecretHash.sha256Hex(this.cookie("gh_session") ?? "")])
            #expect(try await other.get("/settings/security").location == "/login?next=%2Fsettings%2Fsecurity")
            let kept = try await this.get("/settings/security?notice=logged-out-all")
            #expect(kept.status == .ok)
            #expect(kept.text.contains("You were logged out of every other session. This browser is still logged in."))
            #expect(kept.text.components(separatedBy: #"class="session""#).count == 2)
            // Another person's sessions are not touched.
            #expect(try await bob.get("/settings/security").status == .ok)

            // This browser's own Log out still ends it.
            let own = try #require(remaining.first?.session.id)
            let out = try await this.post(
                "/settings/sessions/logout", form: [("csrf_token", csrf), ("session_id", own)])
            #expect(out.location == "/login?next=%2Fsettings%2Fsecurity")
            #expect(try await this.get("/settings/security").location == "/login?next=%2Fsettings%2Fsecurity")
            #expect(try await server.services.storage.sessionActivity?.list(userID: server.alice.id).isEmpty == true)
        }
    }

    @Test func changingThePasswordRevokesLikeAResetAndKeepsThisBrowser() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let browser = Browser(client), elsewhere = Browser(client)
            _ = try await TwoFactorLoginTests.logInToSettings(elsewhere)
            let page = try await TwoFactorLoginTests.logInToSettings(browser)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let wrong = try await browser.post(
                "/settings/password",
                form: [
                    ("csrf_token", csrf), ("current_password", "nope"), ("new_password", "new-password"),
                    ("confirm_password", "new-password"),
                ])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("The password you entered is incorrect."))
            let mismatch = try await browser.post(
                "/settings/password",
                form: [
                    ("csrf_token", csrf), ("current_password", "alice-password"), ("new_password", "new-password"),
                    ("confirm_password", "other-password"),
                ])
            #expect(mismatch.status == .badRequest)
            let changed = try await browser.post(
                "/settings/password",
                form: [
                    ("csrf_token", csrf), ("current_password", "alice-password"), ("new_password", "new-password"),
                    ("confirm_password", "new-password"),
                ])
            #expect(changed.location == "/settings/security?notice=password")
            #expect(
                try await browser.get("/settings/security?notice=password").text.contains("Your password was changed."))
            #expect(try await elsewhere.get("/settings/security").status == .seeOther)
            let me = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.status == .badRequest)
            #expect(me.json["error"]?["code"]?.intValue == 190)
        }
    }

    @Test func turningTwoFactorOffNeedsThePassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await TwoFactorLoginTests.enrol(server, browser)
            let page = try await browser.get("/settings/security")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            #expect(
                try await browser.post(
                    "/settings/two-factor/disable", form: [("csrf_token", csrf), ("password", "wrong")]
                ).status == .unauthorized)
            #expect(try await server.services.storage.twoFactor?.find(userID: server.alice.id)?.isEnabled == true)
            let off = try await browser.post(
                "/settings/two-factor/disable", form: [("csrf_token", csrf), ("password", "alice-password")])
            #expect(off.location == "/settings/security?notice=two-factor-off")
            #expect(try await server.services.storage.twoFactor?.find(userID: server.alice.id) == nil)
            // The login goes straight on again.
            let login = Browser(client)
            let done = try await login.submitLogin(
                page: try await login.get("/dialog/oauth?" + DialogFlowTests.query(server)), email: "alice@example.com",
                password: "alice-password")
            #expect(done.status == .seeOther)
            #expect(login.cookie("gh_session") != nil)
        }
    }

    @Test func deletingTheAccountTellsEveryAppAndRemovesThePerson() async throws {
        let server = try await TestServer.make()
        _ = try await server.token(for: server.alice)
        var app = server.app
        app.dataDeletionCallbackURL = "https://app.example.com/deletion"
        try await server.services.storage.apps.update(app)
        try await server.run { client in
            let browser = Browser(client)
            let page = try await TwoFactorLoginTests.logInToSettings(browser)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            #expect(
                try await browser.post("/settings/account/delete", form: [("csrf_token", csrf), ("password", "wrong")])
                    .status == .unauthorized)
            let deleted = try await browser.post(
                "/settings/account/delete", form: [("csrf_token", csrf), ("password", "alice-password")])
            #expect(deleted.status == .ok)
            #expect(deleted.text.contains("Your account was deleted"))
            #expect(try await server.services.storage.users.find(id: server.alice.id) == nil)
            #expect(server.notifier.removed.map(\.appID) == [server.app.id])
            let queued = try await server.services.storage.appCallbacks.list(
                userID: server.alice.id, kind: .dataDeletion)
            #expect(queued.map(\.appID) == [server.app.id])
        }
    }
}
