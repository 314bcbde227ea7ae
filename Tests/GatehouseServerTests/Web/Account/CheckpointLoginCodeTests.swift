import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32: a checkpointed (or unconfirmed) person's state page starts no session. Passing it goes on through the
/// rest of the login, the login code checkpoint included; clearing the state elsewhere logs no browser in.
@Suite struct CheckpointLoginCodeTests {
    static func state(_ server: TestServer, _ state: AccountState) async throws {
        let alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
        _ = try await server.services.accounts.setAccountState(of: alice, to: state)
    }

    @Test func aCheckpointedPersonWithTwoFactorIsAskedForTheLoginCodeAfterContinue() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (totp, _) = try await TwoFactorLoginTests.enrol(server, Browser(client))
            try await Self.state(server, .checkpointed)
            let browser = Browser(client)
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
            let checkpoint = try await browser.submitLogin(
                page: try await browser.get(dialog), email: "alice@example.com", password: "alice-password")
            #expect(checkpoint.status == .ok)
            #expect(checkpoint.text.contains(#"id="checkpoint-continue""#))
            #expect(browser.cookie("gh_session") == nil)
            #expect(browser.cookie("gh_state") != nil)
            let next = try #require(Browser.hiddenValue("next", in: checkpoint.text))
            #expect(next == dialog)

            let passed = try await browser.post(
                "/dialog/account/continue",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: checkpoint.text))),
                    ("next", next),
                ])
            #expect(passed.status == .ok)
            #expect(passed.text.contains("<h1>Enter login code</h1>"))
            #expect(passed.text.contains(#"action="/dialog/login_code""#))
            #expect(Browser.hiddenValue("next", in: passed.text) == dialog)
            #expect(browser.cookie("gh_session") == nil)
            #expect(browser.cookie("gh_state") == nil)
            #expect(browser.cookie("gh_2fa") != nil)
            // The password and Continue alone clear nothing: the account stays checkpointed until the code is right.
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .checkpointed)
            // Not logged in until the code: the dialog still asks for the password.
            #expect(try await browser.get(dialog).text.contains(#"action="/dialog/oauth/login""#))
            let wrong = try await browser.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: passed.text))), ("next", dialog),
                    ("code", "000000"),
                ])
            #expect(wrong.status == .unauthorized)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .checkpointed)

            server.clock.advance(by: 30)
            let code = try await browser.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: passed.text))), ("next", dialog),
                    ("code", totp.code(at: server.clock.now())),
                ])
            #expect(code.status == .seeOther)
            let location = try #require(code.location)
            #expect(location.hasPrefix(dialog + "&gh_reauth="))
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .active)
            #expect(try await browser.get(location).text.contains(#"action="/dialog/oauth/consent""#))
        }
    }

    /// Someone holding only the password passes the checkpoint page, then cannot give the code: the checkpoint
    /// stays, and so does every token's 190/459.
    @Test func thePasswordAloneNeverClearsACheckpoint() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            _ = try await TwoFactorLoginTests.enrol(server, Browser(client))
            try await Self.state(server, .checkpointed)
            let attacker = Browser(client)
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
            let checkpoint = try await attacker.submitLogin(
                page: try await attacker.get(dialog), email: "alice@example.com", password: "alice-password")
            let passed = try await attacker.post(
                "/dialog/account/continue",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: checkpoint.text))),
                    ("next", dialog),
                ])
            #expect(passed.text.contains("<h1>Enter login code</h1>"))
            server.clock.advance(by: 601)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .checkpointed)
            // Ten minutes on, the code page's challenge is void: back to logging in, with no session.
            let late = try await attacker.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: passed.text))), ("next", dialog),
                    ("code", "000000"),
                ])
            #expect(late.status == .seeOther)
            #expect(attacker.cookie("gh_session") == nil)
        }
    }

    /// A person checkpointed between the password and the code starts the login again and meets the page.
    @Test func aCheckpointSetDuringTheLoginCodeStepSendsTheBrowserBackToLogIn() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (totp, _) = try await TwoFactorLoginTests.enrol(server, Browser(client))
            let browser = Browser(client)
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
            let codePage = try await browser.submitLogin(
                page: try await browser.get(dialog), email: "alice@example.com", password: "alice-password")
            #expect(codePage.text.contains("<h1>Enter login code</h1>"))
            try await Self.state(server, .checkpointed)
            server.clock.advance(by: 30)
            let code = try await browser.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: codePage.text))),
                    ("next", dialog), ("code", totp.code(at: server.clock.now())),
                ])
            #expect(code.status == .seeOther)
            #expect(code.location == dialog)
            #expect(browser.cookie("gh_session") == nil)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .checkpointed)
        }
    }

    /// The cause: the page used to start a session that counted as soon as the state cleared.
    @Test func clearingTheStateElsewhereLogsNoBrowserIn() async throws {
        let server = try await TestServer.make()
        try await Self.state(server, .checkpointed)
        try await server.run { client in
            let browser = Browser(client)
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
            let checkpoint = try await browser.submitLogin(
                page: try await browser.get(dialog), email: "alice@example.com", password: "alice-password")
            #expect(checkpoint.text.contains(#"id="checkpoint-continue""#))
            try await Self.state(server, .active)
            #expect(try await browser.get(dialog).text.contains(#"action="/dialog/oauth/login""#))
            // Its Continue still works, and goes on as a login does (no second factor here: a session, then consent).
            let passed = try await browser.post(
                "/dialog/account/continue",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: checkpoint.text))),
                    ("next", dialog),
                ])
            #expect(passed.status == .seeOther)
            #expect(passed.location?.hasPrefix(dialog + "&gh_reauth=") == true)
            #expect(browser.cookie("gh_session") != nil)
            #expect(
                try await browser.get(try #require(passed.location)).text.contains(#"action="/dialog/oauth/consent""#))
        }
    }

    @Test func continueWithoutAGenuineChallengeSendsTheBrowserBackToLogIn() async throws {
        let server = try await TestServer.make()
        try await Self.state(server, .checkpointed)
        try await server.run { client in
            let browser = Browser(client)
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
            let checkpoint = try await browser.submitLogin(
                page: try await browser.get(dialog), email: "alice@example.com", password: "alice-password")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: checkpoint.text))
            let name = browser.cookies["gh_state"] != nil ? "gh_state" : "__Host-gh_state"
            let genuine = try #require(browser.cookie("gh_state"))
            browser.plantCookie(
                name: name, value: "\(server.alice.id).\(Int(server.clock.now().timeIntervalSince1970)).forged")
            let forged = try await browser.post(
                "/dialog/account/continue", form: [("csrf_token", csrf), ("next", dialog)])
            #expect(forged.status == .seeOther)
            #expect(forged.location == dialog)
            #expect(browser.cookie("gh_session") == nil)
            // After ten minutes the genuine one is void too.
            browser.plantCookie(name: name, value: genuine)
            server.clock.advance(by: 601)
            let late = try await browser.post(
                "/dialog/account/continue", form: [("csrf_token", csrf), ("next", dialog)])
            #expect(late.location == dialog)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .checkpointed)
        }
    }

    /// "Send the email again" proves the password with the same challenge, and carries the dialog into the link.
    @Test func anUnconfirmedPersonsResendNeedsTheChallenge() async throws {
        let server = try await TestServer.make(mode: .production)
        try await Self.state(server, .unconfirmed)
        try await server.run { client in
            let browser = Browser(client)
            let dialog = "/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")])
            let page = try await browser.submitLogin(
                page: try await browser.get(dialog), email: "alice@example.com", password: "alice-password")
            #expect(page.text.contains("<h1>Confirm your email</h1>"))
            #expect(!page.text.contains(#"id="confirm-now""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let sent = try await browser.post(
                "/account/confirm/resend", form: [("csrf_token", csrf), ("next", dialog)])
            #expect(sent.status == .ok)
            #expect(sent.text.contains("Check your email"))
            let link = try await SignUpAndResetTests.link(server, to: "alice@example.com", path: "/account/confirm?c=")
            #expect(link.hasSuffix("&" + FormEncoding.encode([("next", dialog)])))
            let stranger = Browser(client)
            _ = try await stranger.get(dialog)
            let refused = try await stranger.post(
                "/account/confirm/resend", form: [("csrf_token", stranger.cookie("gh_csrf") ?? "")])
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("Log in first"))
        }
    }
}
