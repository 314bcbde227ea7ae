import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 42 item 5: every event type is recorded where its thing happens, and no event carries a secret: the
/// passwords typed, the tokens, codes and recovery codes handed out, the app's secret and the two-factor secret
/// never appear in any serialized event.
@Suite struct EventSecrecyTests {
    @Test func everyTypeIsRecordedAndNoEventCarriesASecret() async throws {
        let server = try await TestServer.make()
        let store = try #require(server.services.storage.events)
        let housekeeping = EventHousekeeping(services: server.services, store: store)
        // The sweep's first pass marks where it starts.
        await housekeeping.sweepExpiredTokens()
        try await server.run { client in
            var secrets = [
                server.app.secret, "alice-password", "bob-password", "wrong-password-123", "new-password-456",
            ]
            let browser = Browser(client)
            // login.failed, login.succeeded.
            _ = try await TwoFactorLoginTests.logInToSettings(browser, password: "wrong-password-123")
            // login.succeeded, two_factor.enrolled (the settings' enrolment signs in first).
            let (totp, recovery) = try await TwoFactorLoginTests.enrol(server, browser)
            secrets += recovery
            let factor = try #require(try await server.services.storage.twoFactor?.find(userID: server.alice.id))
            secrets.append(factor.secret)

            // two_factor.used, consent.granted, then code.exchanged and token.issued.
            server.clock.advance(by: 30)
            let dialog = Browser(client)
            let query = DialogFlowTests.query(server, [("scope", "email"), ("state", "s1")])
            let login = try await dialog.get("/dialog/oauth?" + query)
            let checkpoint = try await dialog.submitLogin(
                page: login, email: "alice@example.com", password: "alice-password")
            let passed = try await dialog.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: checkpoint.text) ?? ""),
                    ("next", Browser.hiddenValue("next", in: checkpoint.text) ?? ""),
                    ("code", totp.code(at: server.clock.now())),
                ])
            secrets.append(totp.code(at: server.clock.now()))
            let afterCode = try #require(passed.location)
            var page = try await dialog.get(Browser.relative(afterCode))
            if page.status == .seeOther || page.status == .found, let next = page.location {
                page = try await dialog.get(Browser.relative(next))
            }
            let consented = try await dialog.submitConsent(page: page, permissions: Browser.offered(in: page.text))
            let location = try #require(consented.location)
            let code = try #require(redirectParameters(location)["code"])
            secrets.append(code)
            let exchanged = try await TokenEndpointTests.exchange(server, client, code: code)
            secrets.append(try #require(exchanged.json["access_token"]?.stringValue))
            // code.replayed, token.revoked.
            _ = try await TokenEndpointTests.exchange(server, client, code: code)

            // admin.write, token.issued; consent.changed (the grant removed).
            let api = V1Client(client: client)
            let minted = try await api.post(
                "/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.bob.id)"}"#)
            secrets.append(try #require(minted.json["access_token"]?.stringValue))
            _ = try await api.delete("/apps/\(server.app.id)/grants/\(server.alice.id)")
            // token.expired: the admin API's token lives two hours by default.
            server.clock.advance(by: 90 * 24 * 3600)
            await housekeeping.sweepExpiredTokens()
            let accounts = server.services.accounts
            let alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
            let changed = try await accounts.changePassword(of: alice, to: "new-password-456")
            _ = try await accounts.changePassword(of: changed, to: "new-password-456", event: .passwordReset)
            try await accounts.disableTwoFactor(for: changed)
            let bob = try #require(try await server.services.storage.users.find(id: server.bob.id))
            let checkpointed = try await accounts.setAccountState(of: bob, to: .checkpointed)
            try await AccountDeletion(services: server.services).delete(checkpointed)

            let events = try await store.list(EventQuery(limit: 1000))
            #expect(Set(events.map(\.type)) == Set(EventType.allCases))
            for event in events {
                let text = event.json.serialized()
                for secret in secrets where !secret.isEmpty {
                    #expect(!text.contains(secret), "\(event.type.rawValue) carries a secret: \(text)")
                }
            }
            let failed = try #require(events.first { $0.type == .loginFailed })
            #expect(failed.personID == server.alice.id)
            #expect(
                failed.details == [
                    "account": "person", "reason": "the email or password was wrong", "step": "password",
                ])
            #expect(events.first { $0.type == .twoFactorUsed }?.details == ["method": "login_code"])
            #expect(events.first { $0.type == .consentGranted }?.details["granted"]?.contains("email") == true)
            #expect(events.first { $0.type == .codeReplayed }?.appID == server.app.id)
            #expect(
                events.first { $0.type == .accountStateChanged }?.details == ["from": "active", "to": "checkpointed"])
        }
    }
}
