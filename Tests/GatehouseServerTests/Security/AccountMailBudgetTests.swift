import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 39, findings 3 and 5: the budgets on reset and sign-up mail. A stranger spends only their own network's
/// budget for an address, so the owner's request still goes through; a recipient gets at most a few mails an hour
/// from networks the account never logged in from; IPv6 /48s have a budget of their own; and old mail and account
/// codes are deleted after the retention period.
@Suite struct AccountMailBudgetTests {
    static func make(_ configure: @escaping (inout GatehouseConfiguration) -> Void = { _ in }) async throws
        -> TestServer
    {
        try await TestServer.make(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            configure(&$0)
        })
    }

    /// GETs `path`'s form and POSTs `fields` with its CSRF token, as a client behind the trusted proxy.
    static func submit(_ browser: Browser, _ path: String, _ fields: [(String, String)], from ip: String)
        async throws -> TestResponse
    {
        let page = try await browser.get(path)
        var headers = browser.cookieHeaders()
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[HTTPField.Name("X-Forwarded-For")!] = ip
        let form = [("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? "")] + fields
        let response = try await browser.client.execute(
            uri: path, method: .post, headers: headers, body: ByteBuffer(string: FormEncoding.encode(form)))
        browser.absorb(response)
        return response
    }

    static func recover(_ browser: Browser, _ email: String, from ip: String) async throws -> TestResponse {
        try await submit(browser, "/account/recover", [("email", email)], from: ip)
    }

    static func mails(_ server: TestServer, to: String) async throws -> [MailMessageRecord] {
        try await server.services.storage.mail?.list(to: to, limit: 1000) ?? []
    }

    @Test func aStrangerCannotSpendTheOwnersResetBudget() async throws {
        let server = try await Self.make()
        try await server.run(.live) { client in
            let stranger = Browser(client), owner = Browser(client)
            for _ in 0..<PasswordRecoveryFlow.perAddressPerNetworkPerHour {
                #expect(try await Self.recover(stranger, "alice@example.com", from: "203.0.113.5").status == .ok)
            }
            #expect(
                try await Self.recover(stranger, "alice@example.com", from: "203.0.113.5").status == .tooManyRequests)
            // The owner, from their own network, is not refused for what the stranger did.
            let mine = try await Self.recover(owner, "alice@example.com", from: "198.51.100.7")
            #expect(mine.status == .ok)
            #expect(mine.text.contains("Check your email"))
        }
    }

    @Test func aRecipientGetsAFewMailsAnHourFromNewNetworksAndTheOwnersNetworkStillWorks() async throws {
        let server = try await Self.make { $0.limits.accountMailPerRecipient = 3 }
        try await server.run(.live) { client in
            let owner = Browser(client)
            // Alice logs in from home once: that network is hers from now on.
            let home = "198.51.100.7"
            let login = try await PasswordForm.settings.submit(
                owner, server: server, email: "alice@example.com", password: "alice-password", from: home)
            #expect(login.status == .seeOther)
            // Three networks, one request each: three mails; the fourth network is refused and sends nothing.
            for i in 1...3 {
                #expect(
                    try await Self.recover(Browser(client), "alice@example.com", from: "203.0.113.\(i)").status == .ok)
            }
            let refused = try await Self.recover(Browser(client), "alice@example.com", from: "203.0.113.4")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.text.contains("too many emails"))
            #expect(try await Self.mails(server, to: "alice@example.com").count == 3)
            // From home, Alice still gets her link.
            #expect(try await Self.recover(owner, "alice@example.com", from: home).status == .ok)
            #expect(try await Self.mails(server, to: "alice@example.com").count == 4)

            // The same cap holds for an address with no account, and for sign-up's "someone tried to sign up
            // with your email", which share it.
            for i in 1...3 {
                let signUp = try await Self.submit(
                    Browser(client), "/account/signup",
                    Array(SignUpAndResetTests.signUpForm("", email: "bob@example.com").dropFirst()),
                    from: "203.0.114.\(i)")
                #expect(signUp.status == .ok)
            }
            let capped = try await Self.submit(
                Browser(client), "/account/signup",
                Array(SignUpAndResetTests.signUpForm("", email: "bob@example.com").dropFirst()), from: "203.0.114.9")
            #expect(capped.status == .tooManyRequests)
            #expect(try await Self.mails(server, to: "bob@example.com").count == 3)
        }
    }

    @Test func anIPv6SlashFortyEightHasABudgetOfItsOwn() async throws {
        let server = try await Self.make { $0.limits.accountMailPerIPv6Slash48 = 4 }
        try await server.run(.live) { client in
            // Four /64s of one /48, each well within its own budget: the /48 stops the fifth.
            for i in 0..<4 {
                let ip = "2001:db8:7:\(String(i, radix: 16))::1"
                #expect(try await Self.recover(Browser(client), "someone\(i)@example.com", from: ip).status == .ok)
            }
            let fifth = try await Self.recover(Browser(client), "someone5@example.com", from: "2001:db8:7:ff::1")
            #expect(fifth.status == .tooManyRequests)
            // Another /48 is not affected.
            #expect(try await Self.recover(Browser(client), "x@example.com", from: "2001:db8:8::1").status == .ok)
        }
    }

    @Test func oldMailAndAccountCodesAreDeletedAfterTheRetentionPeriod() async throws {
        let server = try await Self.make { $0.mail.retentionDays = 30 }
        let pages = try await PageRenderer.load(devMode: true)
        let mailer = AccountMailer(services: server.services, pages: pages)
        let outbox = try #require(server.services.mail)
        let codes = try #require(server.services.storage.accountCodes)
        let old = try await outbox.enqueue(
            kind: "no_account", userID: nil, to: "old@example.com", subject: "Old", text: "old", html: "old")
        _ = try await mailer.issueCode(.resetPassword, userID: server.alice.id, email: "alice@example.com")
        server.clock.advance(by: 31 * 86_400)
        let recent = try await outbox.enqueue(
            kind: "no_account", userID: nil, to: "new@example.com", subject: "New", text: "new", html: "new")
        _ = try await mailer.issueCode(.resetPassword, userID: server.alice.id, email: "alice@example.com")
        let removed = try await AccountMailRetention(services: server.services).prune()
        #expect(removed.mail == 1)
        #expect(removed.codes == 1)
        #expect(try await server.services.storage.mail?.find(id: old.id) == nil)
        #expect(try await server.services.storage.mail?.find(id: recent.id) != nil)
        #expect(try await codes.list(limit: 10).count == 1)
        try await server.close()
    }
}
