import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 39, findings 6 to 10: what a session thief or a password holder could do with the account flows.
@Suite struct AccountTakeoverPathTests {
    static func settings(_ browser: Browser) async throws -> TestResponse {
        try await TwoFactorLoginTests.logInToSettings(browser)
    }

    @Test func turningOnTwoFactorAsksForThePassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await Self.settings(browser)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            #expect(page.text.contains(#"id="two-factor-on-password""#))
            for form in [[("csrf_token", csrf)], [("csrf_token", csrf), ("password", "not-alices")]] {
                let refused = try await browser.post("/settings/two-factor/start", form: form)
                #expect(refused.status == .unauthorized)
                #expect(refused.text.contains("The password you entered is incorrect."))
            }
            #expect(try await server.services.storage.twoFactor?.find(userID: server.alice.id) == nil)
            let started = try await browser.post(
                "/settings/two-factor/start", form: [("csrf_token", csrf), ("password", "alice-password")])
            #expect(started.location == "/settings/two-factor")
            #expect(try await server.services.storage.twoFactor?.find(userID: server.alice.id) != nil)
        }
    }

    @Test func aCompletedResetTellsTheOwnerByMail() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let recover = try await browser.get("/account/recover")
            _ = try await browser.post(
                "/account/recover",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: recover.text))),
                    ("email", "alice@example.com"),
                ])
            let link = try await SignUpAndResetTests.link(server, to: "alice@example.com", path: "/account/reset?c=")
            let page = try await browser.get(link)
            let done = try await browser.post(
                "/account/reset",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
                    ("c", String(link.dropFirst("/account/reset?c=".count))), ("password", "a-new-password"),
                ])
            #expect(done.status == .ok)
            let newest = try #require(try await server.services.storage.mail?.list(to: "alice@example.com", limit: 1))
            #expect(newest.first?.kind == "password_changed")
            #expect(newest.first?.text.contains("/account/recover") == true)
        }
    }

    /// Alice's login up to the code checkpoint; returns the form fields the checkpoint page carries.
    static func toCheckpoint(_ server: TestServer, _ browser: Browser) async throws -> [(String, String)] {
        let query = DialogFlowTests.query(server, [("state", "s1")])
        let page = try await browser.submitLogin(
            page: try await browser.get("/dialog/oauth?" + query), email: "alice@example.com",
            password: "alice-password")
        #expect(page.text.contains("<h1>Enter login code</h1>"))
        return [
            ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
            ("next", try #require(Browser.hiddenValue("next", in: page.text))),
        ]
    }

    @Test func wrongLoginCodesMeetAGrowingDelayAndTheOwnerIsTold() async throws {
        let server = try await TestServer.make { $0.limits.loginCodeAttemptsPerAccount = 6 }
        _ = try await server.services.accounts.enableTwoFactor(for: server.alice, secret: nil)
        try await server.run { client in
            let browser = Browser(client)
            let form = try await Self.toCheckpoint(server, browser)
            func guess() async throws -> TestResponse {
                try await browser.post("/dialog/login_code", form: form + [("code", "000001")])
            }
            // The short window: five, then 429 until it ends.
            for _ in 0..<5 { #expect(try await guess().status == .unauthorized) }
            #expect(try await guess().status == .tooManyRequests)
            server.clock.advance(by: 301)
            // The account's budget (6 counted codes a day), then one slowed turn, then each waits a doubling delay.
            #expect(try await guess().status == .unauthorized)
            #expect(try await guess().status == .unauthorized)
            let waited = try await guess()
            #expect(waited.status == .tooManyRequests)
            #expect(waited.headers[.retryAfter] == "1")
            server.clock.advance(by: 1)
            #expect(try await guess().status == .unauthorized)
            let longer = try await guess()
            #expect(longer.status == .tooManyRequests)
            #expect(longer.headers[.retryAfter] == "4")
            // The owner is told, once.
            let told = try await server.services.storage.mail?.list(to: "alice@example.com", limit: 10) ?? []
            #expect(told.map(\.kind) == ["login_code_failures"])
            #expect(told.first?.text.contains("change your password") == true)
        }
    }

    @Test func rightLoginCodesSpendNoBudgetAndTellNobody() async throws {
        let server = try await TestServer.make { $0.limits.loginCodeAttemptsPerAccount = 2 }
        let enabled = try await server.services.accounts.enableTwoFactor(for: server.alice, secret: nil)
        let totp = TOTP(secret: try #require(Base32.decode(enabled.secret)))
        try await server.run { client in
            // Four logins in a day with a budget of two: the owner's own codes are never slowed or reported.
            for _ in 0..<4 {
                server.clock.advance(by: 30)
                let browser = Browser(client)
                let form = try await Self.toCheckpoint(server, browser)
                let passed = try await browser.post(
                    "/dialog/login_code", form: form + [("code", totp.code(at: server.clock.now()))])
                #expect(passed.status == .seeOther)
            }
            #expect(try await server.services.storage.mail?.list(to: "alice@example.com", limit: 10).isEmpty == true)
        }
    }

    @Test func aPasswordOrEmailChangeEndsEveryOutstandingLink() async throws {
        let server = try await TestServer.make()
        let pages = try await PageRenderer.load(devMode: true)
        let mailer = AccountMailer(services: server.services, pages: pages)
        try await server.run { client in
            func usable(_ code: String) async throws -> Bool {
                try await client.execute(uri: "/account/reset?c=\(code)", method: .get).status == .ok
            }
            // A password change (the settings form's path, the admin API's and the CLI's all run it).
            let first = try await mailer.issueCode(.resetPassword, userID: server.alice.id, email: "alice@example.com")
            #expect(try await usable(first))
            let alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
            _ = try await server.services.accounts.changePassword(of: alice, to: "changed-password")
            #expect(try await !usable(first))

            // An email change through the admin API.
            let second = try await mailer.issueCode(.resetPassword, userID: server.alice.id, email: "alice@example.com")
            #expect(try await usable(second))
            let patched = try await V1Client(client: client).patch(
                "/people/\(server.alice.id)", #"{"email":"alice@new.example"}"#)
            #expect(patched.status == .ok)
            #expect(try await !usable(second))

            // A link is bound to the address it was sent to, even if nothing expired it.
            let third = try await mailer.issueCode(.resetPassword, userID: server.alice.id, email: "alice@old.example")
            #expect(try await !usable(third))
        }
    }

    @Test func deletingAPersonDeletesTheirMail() async throws {
        let server = try await TestServer.make()
        let outbox = try #require(server.services.mail)
        let theirs = try await outbox.enqueue(
            kind: "reset_password", userID: server.alice.id, to: "alice@example.com", subject: "s", text: "t",
            html: "h")
        let toAddress = try await outbox.enqueue(
            kind: "no_account", userID: nil, to: "Alice@Example.com", subject: "s", text: "t", html: "h")
        let bobs = try await outbox.enqueue(
            kind: "reset_password", userID: server.bob.id, to: "bob@example.com", subject: "s", text: "t", html: "h")
        try await server.v1 { api in
            #expect(try await api.delete("/people/\(server.alice.id)").status == .noContent)
            let store = try #require(server.services.storage.mail)
            // Nothing kept names the deleted person or their address; other people's mail stays.
            #expect(try await store.find(id: theirs.id) == nil)
            #expect(try await store.find(id: toAddress.id) == nil)
            #expect(try await store.find(id: bobs.id) != nil)
            #expect(try await store.list(to: nil, limit: 100).allSatisfy { $0.userID != server.alice.id })
        }
    }

    @Test func theStatusEndpointFollowsRequirePKCE() async throws {
        let server = try await JavaScriptSDKEndpointTests.server()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await browser.logIn(
                query: JavaScriptSDKEndpointTests.popupQuery(server), email: "alice@example.com",
                password: "alice-password", grant: ["public_profile"])
            var app = try #require(try await server.services.storage.apps.find(id: server.app.id))
            app.requirePKCE = true
            try await server.services.storage.apps.update(app)
            var headers = browser.cookieHeaders()
            headers[.origin] = JavaScriptSDKEndpointTests.page
            let status = try await client.execute(
                uri: "/x/oauth/status?client_id=\(server.app.id)", method: .get, headers: headers)
            #expect(status.status == .ok)
            #expect(status.text == #"{"status":"unknown","authResponse":null}"#)
            #expect(
                try await server.services.storage.tokens.live(
                    appID: app.id, userID: server.alice.id, now: server.clock.now()
                ).count == 1)
        }
    }
}
