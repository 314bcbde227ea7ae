import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32, items 1-3: sign-up with email confirmation and password reset, through the mail outbox.
@Suite struct SignUpAndResetTests {
    static func signUpForm(_ csrf: String, email: String, password: String = "Carol-pass-1", year: String = "1992")
        -> [(String, String)]
    {
        [
            ("csrf_token", csrf), ("firstname", "Carol"), ("lastname", "Cho"), ("email", email), ("password", password),
            ("birthday_day", "7"), ("birthday_month", "3"), ("birthday_year", year),
        ]
    }

    /// The link in the newest mail to `to` whose path starts with `path`.
    static func link(_ server: TestServer, to: String, path: String) async throws -> String {
        let mail = try #require(try await server.services.storage.mail?.list(to: to, limit: 1).first)
        let start = try #require(mail.text.range(of: "http://gatehouse.test" + path))
        let end = mail.text[start.lowerBound...].firstIndex(where: \.isWhitespace) ?? mail.text.endIndex
        return String(mail.text[start.lowerBound..<end].dropFirst("http://gatehouse.test".count))
    }

    @Test func aPersonSignsUpConfirmsLogsInForgetsThePasswordAndResetsIt() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let form = try await browser.get("/account/signup")
            #expect(form.status == .ok)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: form.text))
            let done = try await browser.post(
                "/account/signup", form: Self.signUpForm(csrf, email: "  Carol@Example.COM "))
            #expect(done.status == .ok)
            #expect(done.text.contains("Check your email"))
            let carol = try #require(try await server.services.storage.users.find(email: "carol@example.com"))
            #expect(carol.email == "carol@example.com")
            #expect(carol.accountState == .unconfirmed)
            #expect(carol.birthday == "03/07/1992")
            // Its tokens answer 190/464 while unconfirmed.
            let early = try await server.token(for: carol)
            let refused = try await client.execute(uri: "/v27.0/me?access_token=\(early)", method: .get)
            #expect(refused.json["error"]?["error_subcode"]?.intValue == 464)

            // Only the hash of the mailed code is stored.
            let confirm = try await Self.link(server, to: "carol@example.com", path: "/account/confirm?c=")
            let code = String(confirm.dropFirst("/account/confirm?c=".count))
            let stored = try #require(try await server.services.storage.accountCodes?.list(limit: 10).first)
            #expect(stored.codeHash == SecretHash.sha256Hex(code))
            let page = try await browser.get(confirm)
            #expect(page.status == .ok)
            let confirmed = try await browser.post(
                "/account/confirm",
                form: [("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))), ("c", code)])
            #expect(confirmed.status == .ok)
            #expect(confirmed.text.contains("Your account is confirmed"))
            #expect(try await server.services.storage.users.find(id: carol.id)?.accountState == .active)
            // Single-use.
            let again = try await browser.post(
                "/account/confirm",
                form: [("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))), ("c", code)])
            #expect(again.status == .gone)

            // Logs in to an app.
            let query = DialogFlowTests.query(server, [("state", "s1")])
            let redirect = try await browser.logIn(query: query, email: "carol@example.com", password: "Carol-pass-1")
            #expect(redirect.hasPrefix(TestServer.redirectURI))
            let token = try await server.token(for: carol)
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)

            // Forgotten password: the same answer for a known and an unknown address.
            let recover = try await browser.get("/account/recover")
            let rcsrf = try #require(Browser.hiddenValue("csrf_token", in: recover.text))
            let known = try await browser.post(
                "/account/recover", form: [("csrf_token", rcsrf), ("email", "carol@example.com")])
            let unknown = try await browser.post(
                "/account/recover", form: [("csrf_token", rcsrf), ("email", "nobody@example.com")])
            #expect(known.status == .ok)
            #expect(unknown.status == known.status)
            #expect(
                unknown.text.replacingOccurrences(of: "nobody@example.com", with: "X").replacingOccurrences(
                    of: Browser.hiddenValue("csrf_token", in: unknown.text) ?? "", with: "")
                    == known.text.replacingOccurrences(of: "carol@example.com", with: "X").replacingOccurrences(
                        of: Browser.hiddenValue("csrf_token", in: known.text) ?? "", with: ""))
            #expect(
                try await server.services.storage.mail?.list(to: "nobody@example.com", limit: 1).first?.kind
                    == "no_account")

            let reset = try await Self.link(server, to: "carol@example.com", path: "/account/reset?c=")
            let resetPage = try await browser.get(reset)
            #expect(resetPage.status == .ok)
            let resetCode = String(reset.dropFirst("/account/reset?c=".count))
            let short = try await browser.post(
                "/account/reset",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: resetPage.text))),
                    ("c", resetCode), ("password", "abc"),
                ])
            #expect(short.status == .badRequest)
            let changed = try await browser.post(
                "/account/reset",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: resetPage.text))),
                    ("c", resetCode), ("password", "New-pass-2"),
                ])
            #expect(changed.status == .ok)
            #expect(changed.text.contains("Your password has been changed"))
            #expect(try await server.services.storage.users.find(id: carol.id)?.passwordChangedAt != nil)
            let old = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(old.json["error"]?["error_subcode"]?.intValue == 460)
            // The link is single-use.
            let reused = try await browser.post(
                "/account/reset",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: resetPage.text))),
                    ("c", resetCode), ("password", "Other-pass-3"),
                ])
            #expect(reused.status == .gone)
        }
    }

    @Test func signUpRefusesBadFieldsAMissingCSRFTokenAndAClosedMode() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let form = try await browser.get("/account/signup")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: form.text))
            let young = try await browser.post(
                "/account/signup", form: Self.signUpForm(csrf, email: "kid@example.com", year: "2024"))
            #expect(young.status == .badRequest)
            #expect(young.text.contains("You must be at least 13 years old"))
            let badEmail = try await browser.post(
                "/account/signup", form: Self.signUpForm(csrf, email: "not-an-address", password: "123"))
            #expect(badEmail.status == .badRequest)
            #expect(badEmail.text.contains(SignUpForm.emailMessage))
            #expect(badEmail.text.contains("Enter a combination of at least six numbers"))
            let forged = try await browser.post(
                "/account/signup", form: Self.signUpForm("forged", email: "x@example.com"))
            #expect(forged.status == .forbidden)
            // An address with an account: the same answer as a new one, and the owner is told.
            let taken = try await browser.post(
                "/account/signup", form: Self.signUpForm(csrf, email: "ALICE@example.com"))
            #expect(taken.status == .ok)
            #expect(taken.text.contains("Check your email"))
            #expect(
                try await server.services.storage.mail?.list(to: "alice@example.com", limit: 1).first?.kind
                    == "no_account")
            try await server.services.storage.emulator.setSetting(SignUpMode.settingName, "closed")
            #expect(try await browser.get("/account/signup").status == .forbidden)
            #expect(
                try await browser.post("/account/signup", form: Self.signUpForm(csrf, email: "y@example.com")).status
                    == .forbidden)
            #expect(try await server.services.storage.users.find(email: "y@example.com") == nil)
        }
    }

    @Test func productionClosesSignUpByDefault() async throws {
        let server = try await TestServer.make(mode: .production)
        try await server.run { client in
            let closed = try await client.execute(uri: "/account/signup", method: .get)
            #expect(closed.status == .forbidden)
            #expect(closed.text.contains("Sign-up is closed"))
        }
    }
}
