import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 27, finding 4: guesses spread over many IPv6 /64s meet a per-account budget (a capped, doubling delay,
/// never a lockout of the owner), and a /48 has a budget of its own across accounts.
@Suite struct AccountWideThrottlingTests {
    /// 24 client networks, each a different /64: 12 inside one /48, 12 in 12 different /48s. (More only adds
    /// live requests: under the full suite's load each one risks the test client's 20-second read timeout.)
    static let networks: [String] =
        (0..<12).map { "2001:db8:aa:\(String($0, radix: 16))::1" }
        + (0..<12).map { "2001:db8:\(String(0x100 + $0, radix: 16)):1::1" }

    static func make(_ hasher: CountingPasswordHasher) async throws -> TestServer {
        try await TestServer.make(
            configure: {
                $0.trustedProxies = ["127.0.0.1"]
                $0.limits.loginAttemptsPerAccountAllNetworks = 10
                $0.limits.loginSlowdownMaxSeconds = 600
            }, passwords: hasher)
    }

    @Test func guessesFromManyNetworksMeetTheAccountBudget() async throws {
        let hasher = CountingPasswordHasher(delay: .zero)
        let server = try await Self.make(hasher)
        try await server.run(.live) { client in
            let browser = Browser(client)
            var statuses: [HTTPResponse.Status] = []
            var waits: [String?] = []
            for ip in Self.networks {
                let r = try await PasswordForm.settings.submit(
                    browser, server: server, email: "alice@example.com", password: "guess", from: ip)
                statuses.append(r.status)
                waits.append(r.headers[.retryAfter])
            }
            // The budget (10), then one slowed turn (the next must wait 1 s), then every guess waits unchecked.
            #expect(statuses.prefix(11).allSatisfy { $0 == .unauthorized })
            #expect(statuses.dropFirst(11).allSatisfy { $0 == .tooManyRequests })
            #expect(waits.dropFirst(11).allSatisfy { $0 == "1" })
            #expect(hasher.verifications == 11)

            // Even the right password from yet another network waits; after the wait it gets its turn, and the
            // delay it leaves behind has doubled past the cap (every early attempt counted).
            let early = try await PasswordForm.settings.submit(
                browser, server: server, email: "alice@example.com", password: "alice-password", from: "2001:db8:bb::1")
            #expect(early.status == .tooManyRequests)
            #expect(early.text.contains("Too many failed attempts. Wait 1 minute and try again."))
            server.clock.advance(by: 1)
            let turn = try await PasswordForm.settings.submit(
                browser, server: server, email: "alice@example.com", password: "guess", from: "2001:db8:bb::2")
            #expect(turn.status == .unauthorized)
            let next = try await PasswordForm.settings.submit(
                browser, server: server, email: "alice@example.com", password: "guess", from: "2001:db8:cc::1")
            #expect(next.status == .tooManyRequests)
            #expect(next.headers[.retryAfter] == "600")
            #expect(hasher.verifications == 12)

            // Another account is not slowed.
            let bob = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "bob-password", from: "2001:db8:cc::2")
            #expect(bob.status == .seeOther)
        }
    }

    @Test func theOwnerIsNeverLockedOut() async throws {
        let hasher = CountingPasswordHasher(delay: .zero)
        let server = try await Self.make(hasher)
        try await server.run(.live) { client in
            let owner = Browser(client), attacker = Browser(client)
            // Alice has logged in from home before the attack.
            let before = try await PasswordForm.settings.submit(
                owner, server: server, email: "alice@example.com", password: "alice-password", from: "198.51.100.7")
            #expect(before.status == .seeOther)
            // The budget (10) and its one slowed turn, each from another network: enough to slow the account.
            for ip in Self.networks.prefix(11) {
                _ = try await PasswordForm.settings.submit(
                    attacker, server: server, email: "alice@example.com", password: "guess", from: ip)
            }
            let slowed = try await PasswordForm.settings.submit(
                attacker, server: server, email: "alice@example.com", password: "guess", from: "2001:db8:dd::1")
            #expect(slowed.status == .tooManyRequests)

            // From home, at once: not slowed at all.
            let home = try await PasswordForm.settings.submit(
                Browser(client), server: server, email: "alice@example.com", password: "alice-password",
                from: "198.51.100.7")
            #expect(home.status == .seeOther)
            #expect(home.headers[values: .setCookie].contains { $0.hasPrefix("__Host-gh_session=") })

            // From a new network: at most the capped delay, then in.
            server.clock.advance(by: 600)
            let travelling = try await PasswordForm.settings.submit(
                Browser(client), server: server, email: "alice@example.com", password: "alice-password",
                from: "2001:db8:ee::1")
            #expect(travelling.status == .seeOther)
        }
    }

    @Test func everySlash48HasABudgetAcrossAccounts() async throws {
        let server = try await TestServer.make(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.limits.loginAttemptsPerIPv6Slash48 = 5
        })
        try await server.run(.live) { client in
            let browser = Browser(client)
            let accounts = [
                "alice@example.com", "bob@example.com", "carol@example.com", "dan@example.com", "erin@example.com",
            ]
            // Five /64s of one /48, five accounts: each /64 and each account is far from its own budget.
            for (i, email) in accounts.enumerated() {
                let r = try await PasswordForm.settings.submit(
                    browser, server: server, email: email, password: "guess", from: "2001:db8:77:\(i)::1")
                #expect(r.status == .unauthorized)
            }
            let sixth = try await PasswordForm.settings.submit(
                browser, server: server, email: "frank@example.com", password: "guess", from: "2001:db8:77:99::1")
            #expect(sixth.status == .tooManyRequests)
            #expect(sixth.headers[.retryAfter] == "900")
            // Even the right password from that /48 waits; the next /48 is another site.
            let inside = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "bob-password", from: "2001:db8:77:abc::1")
            #expect(inside.status == .tooManyRequests)
            let outside = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "bob-password", from: "2001:db8:78::1")
            #expect(outside.status == .seeOther)
            // IPv4 clients have no /48.
            let v4 = try await PasswordForm.settings.submit(
                browser, server: server, email: "bob@example.com", password: "bob-password", from: "192.0.2.10")
            #expect(v4.status == .seeOther)
        }
    }
}
