import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32: "Create new account" and "Forgotten password?" reached from an app's login dialog carry the dialog's
/// address as `next` through the forms and the mailed link, and end back in that dialog (consent for that app).
/// `next` is validated as the login code checkpoint validates it: never another host.
@Suite struct AccountFlowNextTests {
    /// The `href` of the link with `id` on a page, unescaped.
    static func href(_ id: String, in html: String) -> String? {
        guard let range = html.range(of: #"href="([^"]*)" id="\#(id)""#, options: .regularExpression) else {
            return nil
        }
        let attribute = html[range].dropFirst(6).prefix { $0 != "\"" }
        return Browser.hiddenValue("x", in: #"name="x" value="\#(attribute)""#)
    }

    static func dialog(_ server: TestServer) -> String {
        "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
    }

    @Test func signUpFromTheDialogConfirmsAndLogsInBackToThatAppsConsent() async throws {
        let server = try await TestServer.make()
        let dialog = Self.dialog(server)
        try await server.run { client in
            let browser = Browser(client)
            let login = try await browser.get(dialog)
            let carried = "?" + FormEncoding.encode([("next", dialog)])
            #expect(Self.href("create-account", in: login.text) == "/account/signup" + carried)
            #expect(Self.href("forgotten-password", in: login.text) == "/account/recover" + carried)

            let form = try await browser.get("/account/signup" + carried)
            #expect(form.status == .ok)
            #expect(Browser.hiddenValue("next", in: form.text) == dialog)
            #expect(Self.href("login-link", in: form.text) == dialog)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: form.text))
            let done = try await browser.post(
                "/account/signup",
                form: SignUpAndResetTests.signUpForm(csrf, email: "carol@example.com") + [("next", dialog)])
            #expect(done.status == .ok)
            #expect(Self.href("login-link", in: done.text) == dialog)

            let mail = try #require(
                try await server.services.storage.mail?.list(to: "carol@example.com", limit: 1).first)
            #expect(mail.text.contains("You recently created a Gatehouse account to use Test App."))
            let link = try await SignUpAndResetTests.link(server, to: "carol@example.com", path: "/account/confirm?c=")
            #expect(link.hasSuffix("&" + FormEncoding.encode([("next", dialog)])))
            let page = try await browser.get(link)
            #expect(page.status == .ok)
            #expect(Browser.hiddenValue("next", in: page.text) == dialog)
            let confirmed = try await browser.post(
                "/account/confirm",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
                    ("c", try #require(Browser.hiddenValue("c", in: page.text))), ("next", dialog),
                ])
            #expect(confirmed.status == .ok)
            #expect(confirmed.text.contains("Your account is confirmed"))
            let back = try #require(Self.href("login-link", in: confirmed.text))
            #expect(back == dialog)

            // Log in there: the consent page of the app the person started from.
            let again = try await browser.get(back)
            let loggedIn = try await browser.submitLogin(
                page: again, email: "carol@example.com", password: "Carol-pass-1")
            #expect(loggedIn.status == .seeOther)
            let consent = try await browser.get(try #require(loggedIn.location))
            #expect(consent.status == .ok)
            #expect(consent.text.contains(#"action="/dialog/oauth/consent""#))
            #expect(consent.text.contains("<strong>Test App</strong>"))
        }
    }

    @Test func aResetFromTheDialogEndsBackInThatDialog() async throws {
        let server = try await TestServer.make()
        let dialog = Self.dialog(server)
        try await server.run { client in
            let browser = Browser(client)
            let carried = "?" + FormEncoding.encode([("next", dialog)])
            let form = try await browser.get("/account/recover" + carried)
            #expect(Browser.hiddenValue("next", in: form.text) == dialog)
            let sent = try await browser.post(
                "/account/recover",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: form.text))),
                    ("email", "alice@example.com"), ("next", dialog),
                ])
            #expect(sent.status == .ok)
            #expect(Self.href("login-link", in: sent.text) == dialog)
            let link = try await SignUpAndResetTests.link(server, to: "alice@example.com", path: "/account/reset?c=")
            #expect(link.hasSuffix("&" + FormEncoding.encode([("next", dialog)])))
            let page = try await browser.get(link)
            #expect(page.status == .ok)
            #expect(Browser.hiddenValue("next", in: page.text) == dialog)
            let changed = try await browser.post(
                "/account/reset",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
                    ("c", try #require(Browser.hiddenValue("c", in: page.text))), ("password", "Alice-new-2"),
                    ("next", dialog),
                ])
            #expect(changed.status == .ok)
            #expect(changed.text.contains("Your password has been changed"))
            let back = try #require(Self.href("login-link", in: changed.text))
            #expect(back == dialog)
            let loggedIn = try await browser.submitLogin(
                page: try await browser.get(back), email: "alice@example.com", password: "Alice-new-2")
            #expect(loggedIn.status == .seeOther)
            let consent = try await browser.get(try #require(loggedIn.location))
            #expect(consent.text.contains(#"action="/dialog/oauth/consent""#))
            #expect(consent.text.contains("<strong>Test App</strong>"))
        }
    }

    /// Another host, a scheme-relative address or a page that is not a login page is dropped everywhere: the form,
    /// the mailed link and the final "Log in" (then plain `/login`).
    @Test func anOutsideNextIsNeverCarried() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            for evil in [
                "https://evil.example/dialog/oauth", "//evil.example/dialog/oauth", "/console/apps", "/\\evil.example",
            ] {
                let carried = "?" + FormEncoding.encode([("next", evil)])
                for path in ["/account/signup", "/account/recover"] {
                    let page = try await browser.get(path + carried)
                    #expect(page.status == .ok)
                    #expect(Browser.hiddenValue("next", in: page.text) == nil, "\(path) \(evil)")
                    if path == "/account/signup" {
                        #expect(Self.href("login-link", in: page.text) == "/login", "\(evil)")
                    }
                }
            }
            let form = try await browser.get("/account/recover")
            _ = try await browser.post(
                "/account/recover",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: form.text))),
                    ("email", "alice@example.com"),
                    ("next", "https://evil.example/"),
                ])
            let link = try await SignUpAndResetTests.link(server, to: "alice@example.com", path: "/account/reset?c=")
            #expect(!link.contains("next"))
            // A forged next added to a real link is dropped too.
            let page = try await browser.get(link + "&next=%2F%2Fevil.example%2F")
            #expect(page.status == .ok)
            #expect(Browser.hiddenValue("next", in: page.text) == nil)
        }
    }

    @Test func theLogInLinkGoesToTheDialogItselfOrToLoginWithNext() {
        #expect(AccountFlowPages.loginHref(nil) == "/login")
        #expect(AccountFlowPages.loginHref("/dialog/oauth?client_id=1") == "/dialog/oauth?client_id=1")
        #expect(AccountFlowPages.loginHref("/v27.0/dialog/oauth?client_id=1") == "/v27.0/dialog/oauth?client_id=1")
        #expect(AccountFlowPages.loginHref("/device?user_code=ABCD2345") == "/device?user_code=ABCD2345")
        #expect(AccountFlowPages.loginHref("/settings/security") == "/login?next=%2Fsettings%2Fsecurity")
        #expect(AccountFlowPages.next("https://evil.example/") == nil)
        #expect(AccountFlowPages.next("") == nil)
        #expect(AccountFlowPages.nextParameter("/dialog/oauth?a=1&b=2") == "&next=%2Fdialog%2Foauth%3Fa%3D1%26b%3D2")
    }
}
