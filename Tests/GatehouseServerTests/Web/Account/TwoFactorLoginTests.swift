import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32 item 4: two-factor login. Enrolled from the settings, asked between the password and consent, each
/// code good once, wrong codes throttled, recovery codes shown once and good once.
@Suite struct TwoFactorLoginTests {
    /// Logs the browser in through `/login` and returns the settings page.
    static func logInToSettings(_ browser: Browser, password: String = "alice-password") async throws -> TestResponse {
        let form = try await browser.get("/login?next=%2Fsettings%2Fsecurity")
        let done = try await browser.post(
            "/login",
            form: [
                ("csrf_token", Browser.hiddenValue("csrf_token", in: form.text) ?? ""), ("next", "/settings/security"),
                ("email", "alice@example.com"), ("password", password),
            ])
        return try await browser.get(Browser.relative(done.location ?? "/settings/security"))
    }

    /// Turns two-factor login on from the settings; returns the generator and the recovery codes shown.
    static func enrol(_ server: TestServer, _ browser: Browser) async throws -> (TOTP, [String]) {
        let settings = try await logInToSettings(browser)
        #expect(settings.text.contains(#"id="two-factor-on""#))
        let csrf = try #require(Browser.hiddenValue("csrf_token", in: settings.text))
        let started = try await browser.post(
            "/settings/two-factor/start", form: [("csrf_token", csrf), ("password", "alice-password")])
        #expect(started.location == "/settings/two-factor")
        let setup = try await browser.get("/settings/two-factor")
        let secret = try #require(
            setup.text.components(separatedBy: #"id="two-factor-secret">"#).dropFirst().first?.prefix { $0 != "<" })
        #expect(setup.text.contains("otpauth://totp/Gatehouse:alice%40example.com?secret="))
        let totp = TOTP(secret: try #require(Base32.decode(String(secret))))
        // Until the first code is confirmed, logins do not ask.
        #expect(try await server.services.storage.twoFactor?.find(userID: server.alice.id)?.isEnabled == false)
        let wrong = try await browser.post(
            "/settings/two-factor/confirm",
            form: [("csrf_token", csrf), ("code", "000000" == totp.code(at: server.clock.now()) ? "111111" : "000000")])
        #expect(wrong.status == .unauthorized)
        let confirmed = try await browser.post(
            "/settings/two-factor/confirm", form: [("csrf_token", csrf), ("code", totp.code(at: server.clock.now()))])
        #expect(confirmed.status == .ok)
        let codes = confirmed.text.components(separatedBy: "<li><code>").dropFirst().map {
            String($0.prefix { $0 != "<" })
        }
        #expect(codes.count == 10)
        // Shown once: the settings page says on, and shows no code.
        let after = try await browser.get("/settings/security")
        #expect(after.text.contains("Recovery codes left: 10"))
        #expect(!after.text.contains(codes[0]))
        return (totp, codes)
    }

    @Test func aPersonWithTwoFactorMeetsTheCheckpointAndEachCodeIsGoodOnce() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (totp, recovery) = try await Self.enrol(server, Browser(client))
            let stored = try await server.services.storage.twoFactor?.find(userID: server.alice.id)
            #expect(stored?.lastUsedStep == totp.step(at: server.clock.now()))

            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("scope", "email"), ("state", "s1")])
            let login = try await browser.get("/dialog/oauth?" + query)
            let checkpoint = try await browser.submitLogin(
                page: login, email: "alice@example.com", password: "alice-password")
            #expect(checkpoint.status == .ok)
            #expect(checkpoint.text.contains("<h1>Enter login code</h1>"))
            #expect(checkpoint.text.contains(#"id="development-code""#))
            #expect(browser.cookie("gh_2fa") != nil)
            // No session yet: the dialog still shows its login form.
            #expect(browser.cookie("gh_session") == nil)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: checkpoint.text))
            let next = try #require(Browser.hiddenValue("next", in: checkpoint.text))
            // The code used to confirm the enrolment cannot log in.
            let reused = try await browser.post(
                "/dialog/login_code",
                form: [("csrf_token", csrf), ("next", next), ("code", totp.code(at: server.clock.now()))])
            #expect(reused.status == .unauthorized)
            #expect(reused.text.contains("That code was already used"))
            // A forged form is refused; an outside next is never followed.
            #expect(
                try await browser.post(
                    "/dialog/login_code", form: [("csrf_token", "forged"), ("next", next), ("code", "1")]
                ).status == .forbidden)
            #expect(
                try await browser.post(
                    "/dialog/login_code",
                    form: [("csrf_token", csrf), ("next", "https://evil.example/"), ("code", "1")]
                ).status == .badRequest)
            server.clock.advance(by: 30)
            let code = totp.code(at: server.clock.now())
            let passed = try await browser.post(
                "/dialog/login_code", form: [("csrf_token", csrf), ("next", next), ("code", code)])
            #expect(passed.status == .seeOther)
            #expect(browser.cookie("gh_2fa") == nil)
            let location = try #require(passed.location)
            #expect(location.hasPrefix("/dialog/oauth?") && location.contains("gh_reauth="))
            let consent = try await browser.get(location)
            #expect(consent.text.contains(#"action="/dialog/oauth/consent""#))

            // A second browser: the same code again is refused, a recovery code passes once.
            let other = Browser(client)
            let page = try await other.submitLogin(
                page: try await other.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "alice-password")
            let form = [
                ("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? ""),
                ("next", Browser.hiddenValue("next", in: page.text) ?? ""),
            ]
            #expect(try await other.post("/dialog/login_code", form: form + [("code", code)]).status == .unauthorized)
            #expect(
                try await other.post("/dialog/login_code", form: form + [("code", recovery[3].lowercased())]).status
                    == .seeOther)
            #expect(try await server.services.storage.twoFactor?.recoveryCodesLeft(userID: server.alice.id) == 9)
            let third = Browser(client)
            let again = try await third.submitLogin(
                page: try await third.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "alice-password")
            let refused = try await third.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: again.text) ?? ""),
                    ("next", Browser.hiddenValue("next", in: again.text) ?? ""),
                    ("code", recovery[3]),
                ])
            #expect(refused.status == .unauthorized)
            // Without the challenge cookie (another browser, or after ten minutes) the code is not even looked at.
            let stranger = Browser(client)
            _ = try await stranger.get("/dialog/oauth?" + query)
            let lost = try await stranger.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", stranger.cookie("gh_csrf") ?? ""), ("next", next),
                    ("code", totp.code(at: server.clock.now())),
                ])
            #expect(lost.status == .seeOther)
            #expect(lost.location == next)
        }
    }

    @Test func wrongCodesAreThrottledPerPerson() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (totp, _) = try await Self.enrol(server, Browser(client))
            server.clock.advance(by: 60)
            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("state", "s1")])
            let page = try await browser.submitLogin(
                page: try await browser.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "alice-password")
            let form = [
                ("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? ""),
                ("next", Browser.hiddenValue("next", in: page.text) ?? ""),
            ]
            let right = totp.code(at: server.clock.now())
            let wrong = right == "123456" ? "654321" : "123456"
            for _ in 0..<5 {
                let refused = try await browser.post("/dialog/login_code", form: form + [("code", wrong)])
                #expect(refused.status == .unauthorized)
                #expect(
                    refused.text.contains("The code you entered isn&#39;t correct")
                        || refused.text.contains("The code you entered isn't correct"))
            }
            let throttled = try await browser.post("/dialog/login_code", form: form + [("code", right)])
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.headers[.retryAfter] != nil)
            server.clock.advance(by: 300)
            let code = totp.code(at: server.clock.now())
            // The challenge is still within its ten minutes.
            #expect(try await browser.post("/dialog/login_code", form: form + [("code", code)]).status == .seeOther)
        }
    }
}

extension Browser {
    /// The cookie named `base`, under its `__Host-` name where cookies are `Secure`.
    func cookie(_ base: String) -> String? { cookies[base] ?? cookies["__Host-" + base] }
}
