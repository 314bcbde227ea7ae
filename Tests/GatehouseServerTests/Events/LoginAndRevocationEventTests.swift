import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 42 item 5: a console administrator's login is a login event like a person's (told apart by
/// `details.account`), and `token.revoked` names only tokens a revocation really ended.
@Suite struct LoginAndRevocationEventTests {
    static func events(_ server: TestServer, _ types: [EventType]) async throws -> [GatehouseEvent] {
        try await #require(server.services.storage.events).list(EventQuery(types: types, limit: 100))
    }

    @Test func consoleLoginsAreLoginEventsOfAnAdmin() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"; $0.limits.loginAttemptsPerAccount = 2
        })
        try await AdminAccounts(services: server.services).create(
            email: "ops@example.com", password: AdminConsoleTests.password)
        let admin = try #require(try await server.services.storage.admins.find(email: "ops@example.com"))
        try await server.run { client in
            // A fresh browser each time: a login binds the CSRF token to its session.
            func logIn(_ email: String, _ password: String) async throws -> TestResponse {
                let browser = Browser(client)
                let form = try await browser.get("/console/login")
                let csrf = try #require(Browser.hiddenValue("csrf_token", in: form.text))
                return try await browser.post(
                    "/console/login", form: [("csrf_token", csrf), ("email", email), ("password", password)])
            }
            #expect(try await logIn("nobody@example.com", "wrong password one").status == .seeOther)
            #expect(try await logIn("ops@example.com", "wrong password two").status == .seeOther)
            #expect(try await logIn("ops@example.com", AdminConsoleTests.password).status == .seeOther)
            let wrong = ["account": "admin", "reason": "the email or password was wrong", "step": "password"]
            var named = wrong
            named["admin_id"] = admin.id
            let failed = try await Self.events(server, [.loginFailed])
            #expect(failed.map(\.details) == [wrong, named])
            #expect(failed.allSatisfy { $0.personID == nil && $0.appID == nil })
            let succeeded = try await Self.events(server, [.loginSucceeded])
            #expect(succeeded.map(\.details) == [["account": "admin", "admin_id": admin.id]])
            #expect(succeeded.first?.personID == nil)

            // Over the budget: refused before the password is checked, with the journal's reason.
            _ = try await logIn("ops@example.com", "wrong password three")
            _ = try await logIn("ops@example.com", "wrong password four")
            let limited = try await logIn("ops@example.com", AdminConsoleTests.password)
            #expect(limited.status == .tooManyRequests)
            let retry = try #require(limited.headers[.retryAfter])
            let last = try #require(try await Self.events(server, [.loginFailed]).last)
            #expect(
                last.details == [
                    "account": "admin", "reason": "too many failed password attempts; retry after \(retry) s",
                    "step": "password",
                ])
            for event in try await Self.events(server, []) {
                #expect(!event.json.serialized().contains("wrong password"))
                #expect(!event.json.serialized().contains(AdminConsoleTests.password))
            }
        }
    }

    @Test func aPersonsLoginEventsSayItIsAPersons() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await TwoFactorLoginTests.logInToSettings(browser, password: "wrong-password-123")
            _ = try await TwoFactorLoginTests.logInToSettings(browser)
            let failed = try #require(try await Self.events(server, [.loginFailed]).first)
            #expect(failed.personID == server.alice.id)
            #expect(
                failed.details == [
                    "account": "person", "reason": "the email or password was wrong", "step": "password",
                ])
            let succeeded = try #require(try await Self.events(server, [.loginSucceeded]).first)
            #expect(succeeded.personID == server.alice.id)
            #expect(succeeded.details == ["account": "person"])
        }
    }

    @Test func revokingAllOfAPersonsTokensAnnouncesOnlyTheTokensItEnded() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let api = V1Client(client: client)
            let bob = server.bob.id
            // Nothing live: nothing revoked, nothing announced.
            let none = try await api.post("/tokens/revoke", #"{"person_id":"\#(bob)"}"#)
            #expect(none.status == .ok)
            #expect(none.json == .object(["revoked": .int(0)]))
            #expect(try await Self.events(server, [.tokenRevoked]).isEmpty)

            var minted: [String] = []
            for _ in 0..<2 {
                let token = try await api.post("/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(bob)"}"#)
                #expect(token.status == .created)
                minted.append(try #require(token.json["id"]?.stringValue))
            }
            let two = try await api.post("/tokens/revoke", #"{"person_id":"\#(bob)"}"#)
            #expect(two.json == .object(["revoked": .int(2)]))
            let revoked = try await Self.events(server, [.tokenRevoked])
            #expect(Set(revoked.compactMap { $0.details["token_id"] }) == Set(minted))
            for event in revoked {
                #expect(event.appID == server.app.id)
                #expect(event.personID == bob)
                #expect(event.details["scope"] == "person")
                #expect(event.details["kind"] == "user")
            }
            // Again: the tokens are already revoked, so no new event.
            _ = try await api.post("/tokens/revoke", #"{"person_id":"\#(bob)"}"#)
            try await server.services.storage.tokens.revoke(id: minted[0], at: server.clock.now())
            #expect(try await Self.events(server, [.tokenRevoked]).count == 2)
        }
    }
}

extension LoginAndRevocationEventTests {
    @Test func anAppDeletingItsTestUserIsAnAccountDeletion() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (scoped, _) = try await FriendshipForgeryTests.testUser(server, client)
            let deleted = try await client.execute(uri: "/\(scoped)?access_token=\(server.appToken)", method: .delete)
            #expect(deleted.status == .ok)
            let events = try await Self.events(server, [.accountDeleted])
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event.appID == server.app.id)
            #expect(event.details == ["apps_told": "0", "by": "app"])
            let person = try #require(event.personID)
            #expect(try await server.services.storage.users.find(id: person) == nil)
        }
    }
}
