import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 12, findings 2 and 6: every password form goes through one throttle that reserves each attempt before
/// the password is checked, counts per (account, client network) plus per network, and keys IPv6 by its /64.
@Suite struct PasswordThrottlingTests {
    @Test(arguments: [PasswordForm.settings, .device])
    func formsOutsideTheDialogRefuseGuessingPastTheBudget(_ form: PasswordForm) async throws {
        let server = try await TestServer.make(configure: {
            $0.limits.loginAttemptsPerAccount = 3; $0.limits.loginWindowSeconds = 600
        })
        try await server.run { client in
            let browser = Browser(client)
            for _ in 0..<3 {
                let wrong = try await form.submit(
                    browser, server: server, email: "alice@example.com", password: "guess")
                #expect(wrong.status == .unauthorized)
            }
            // Even the right password is refused now, without being checked.
            let limited = try await form.submit(
                browser, server: server, email: "alice@example.com", password: "alice-password")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "600")
            #expect(limited.headers[.contentType] == "text/html; charset=utf-8")
            #expect(limited.text.contains("Too many failed attempts. Wait 10 minutes and try again."))
            #expect(limited.headers[.setCookie]?.hasPrefix("__Host-gh_session=") != true)
        }
    }

    @Test func failuresOnOneFormCountOnEveryOther() async throws {
        let server = try await TestServer.make(configure: { $0.limits.loginAttemptsPerAccount = 3 })
        try await server.run { client in
            let browser = Browser(client)
            _ = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "guess 1")
            _ = try await PasswordForm.device.submit(
                browser, server: server, email: "bob@example.com", password: "guess 2")
            _ = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "guess 3")
            let dialog = try await PasswordForm.dialog.submit(
                browser, server: server, email: "bob@example.com", password: "bob-password")
            #expect(dialog.status == .tooManyRequests)
            #expect(dialog.text.contains("Too many failed attempts."))
        }
    }

    @Test func twentyParallelWrongPasswordsVerifyNoMoreThanTheBudget() async throws {
        let hasher = CountingPasswordHasher()
        let server = try await TestServer.make(configure: { $0.limits.loginAttemptsPerAccount = 5 }, passwords: hasher)
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/login")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let cookies = browser.cookieHeaders()
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        var headers = cookies
                        headers[.contentType] = "application/x-www-form-urlencoded"
                        let body = FormEncoding.encode([
                            ("csrf_token", csrf), ("email", "alice@example.com"), ("password", "parallel guess \(i)"),
                        ])
                        return try await client.execute(
                            uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: body)
                        ).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(hasher.verifications <= 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count >= 15)
            #expect(statuses.filter { $0 == .unauthorized }.count <= 5)
        }
    }

    @Test func aStrangerGuessingCannotLockTheOwnerOut() async throws {
        let server = try await TestServer.make(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.limits.loginAttemptsPerAccount = 3
        })
        try await server.run(.live) { client in
            let attacker = Browser(client), owner = Browser(client)
            for _ in 0..<3 {
                _ = try await PasswordForm.dialog.submit(
                    attacker, server: server, email: "alice@example.com", password: "guess", from: "203.0.113.66")
            }
            let spent = try await PasswordForm.dialog.submit(
                attacker, server: server, email: "alice@example.com", password: "guess", from: "203.0.113.66")
            #expect(spent.status == .tooManyRequests)
            // The owner, elsewhere, still gets in with the right password.
            let mine = try await PasswordForm.dialog.submit(
                owner, server: server, email: "alice@example.com", password: "alice-password", from: "198.51.100.7")
            #expect(mine.status == .seeOther)
            #expect(mine.location?.contains("gh_reauth=") == true)
        }
    }

    @Test func ipv6ClientsShareOneBudgetPerSlash64() async throws {
        let server = try await TestServer.make(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.limits.loginAttemptsPerIP = 2
        })
        try await server.run(.live) { client in
            let browser = Browser(client)
            // Different addresses in one /64, different accounts: only the network budget applies.
            _ = try await PasswordForm.settings.submit(
                browser, server: server, email: "alice@example.com", password: "guess", from: "2001:db8:1:2::1")
            _ = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "guess", from: "2001:db8:1:2::2")
            let third = try await PasswordForm.settings.submit(
                browser, server: server, email: "nobody@example.com", password: "guess", from: "2001:db8:1:2:ffff::3")
            #expect(third.status == .tooManyRequests)
            // The next /64 is another subscriber.
            let neighbour = try await PasswordForm.settings.submit(
                browser, server: server, email: "alice@example.com", password: "alice-password", from: "2001:db8:1:3::1"
            )
            #expect(neighbour.status == .seeOther)
        }
    }
}
