import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 30, item 4: the account states Facebook reports, kept on the person. Each gives Facebook's error on the
/// Graph API (until the state changes, not once) and its page in the dialog; they are set from the admin API,
/// the console and (elsewhere) the CLI and scenario files.
@Suite struct AccountStateTests {
    static let bodies: [AccountState: String] = [
        .checkpointed:
            #"{"error":{"message":"Error validating access token: You cannot access the app till you log in to "#
            + #"www.facebook.com and follow the instructions given.","type":"OAuthException","code":190,"error_subcode":459}}"#,
        .unconfirmed:
            #"{"error":{"message":"Error validating access token: Sessions for the user  are not allowed because "#
            + #"the user is not a confirmed user.","type":"OAuthException","code":190,"error_subcode":464}}"#,
        .disabled:
            #"{"error":{"message":"Error validating access token: The session user is invalid.","#
            + #""type":"OAuthException","code":190,"error_subcode":465}}"#,
        .loggedOut:
            #"{"error":{"message":"Error validating access token: The session is invalid because the user logged "#
            + #"out.","type":"OAuthException","code":190,"error_subcode":467}}"#,
    ]

    static func setState(_ client: any TestClientProtocol, _ person: UserRecord, _ state: String) async throws
        -> TestResponse
    {
        try await client.execute(
            uri: "/admin/api/v1/people/\(person.id)", method: .patch, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"account_state":"\#(state)"}"#))
    }

    @Test(arguments: [AccountState.checkpointed, .unconfirmed, .disabled, .loggedOut])
    func everyTokenAnswersTheStatesErrorUntilTheStateChanges(state: AccountState) async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let other = try await server.token(for: server.bob)
        try await server.run { client in
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
            let set = try await Self.setState(client, server.alice, state.rawValue)
            #expect(set.status == .ok, "\(set.text)")
            #expect(set.json["account_state"]?.stringValue == state.rawValue)
            // Persistent: every call, not one.
            for _ in 0..<3 {
                let refused = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
                #expect(refused.status == .badRequest)
                #expect(refused.text == Self.bodies[state])
            }
            // debug_token says the token is not valid, with the same code and subcode.
            let debug = try await client.execute(
                uri: "/v27.0/debug_token?input_token=\(token)&access_token=\(server.appToken)", method: .get)
            #expect(debug.json["data"]?["is_valid"]?.boolValue == false)
            #expect(debug.json["data"]?["error"]?["subcode"]?.intValue.map(Int.init) == state.graphError?.errorSubcode)
            // Nobody else is touched.
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(other)", method: .get).status == .ok)
            #expect(
                try await Self.setState(client, server.alice, "active").json["account_state"]?.stringValue == "active")
            let after = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            if state == .loggedOut {
                // Logged out everywhere: the tokens were revoked and stay dead once the person is active again.
                #expect(after.text == Self.bodies[.loggedOut])
            } else {
                #expect(after.status == .ok)
            }
        }
    }

    @Test func theAdminAPIRefusesAnUnknownStateAndListsTheKnownOnes() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let refused = try await Self.setState(client, server.alice, "frozen")
            #expect(refused.status == .badRequest)
            #expect(
                refused.text.contains(
                    "account_state must be one of active, checkpointed, unconfirmed, disabled, logged-out"))
            let person = try await client.execute(uri: "/admin/api/v1/people/\(server.alice.id)", method: .get)
            #expect(person.json["account_state"]?.stringValue == "active")
        }
    }

    @Test func aCheckpointedPersonPassesTheCheckpointPageAndGoesOnToConsent() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        _ = try await server.services.accounts.setAccountState(of: server.alice, to: .checkpointed)
        try await server.run { client in
            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("scope", "email"), ("state", "s1")])
            let login = try await browser.get("/dialog/oauth?" + query)
            #expect(login.text.contains(#"action="/dialog/oauth/login""#))
            let checkpoint = try await browser.submitLogin(
                page: login, email: "alice@example.com", password: "alice-password")
            #expect(checkpoint.status == .ok)
            #expect(
                checkpoint.text.contains("<h1>Confirm it&#39;s you</h1>")
                    || checkpoint.text.contains("<h1>Confirm it's you</h1>"))
            #expect(checkpoint.text.contains(#"action="/dialog/account/continue""#))
            #expect(checkpoint.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(checkpoint.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(!checkpoint.text.contains("<script"))
            // Until it is passed: the token still answers 459, and the dialog does not count the session.
            #expect(
                try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).text
                    == Self.bodies[.checkpointed])
            #expect(try await browser.get("/dialog/oauth?" + query).text.contains(#"action="/dialog/oauth/login""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: checkpoint.text))
            let next = try #require(Browser.hiddenValue("next", in: checkpoint.text))
            #expect(next.hasPrefix("/dialog/oauth?"))
            // A forged form is refused, and an outside `next` is never followed.
            #expect(
                try await browser.post("/dialog/account/continue", form: [("csrf_token", "forged"), ("next", next)])
                    .status == .forbidden)
            #expect(
                try await browser.post(
                    "/dialog/account/continue", form: [("csrf_token", csrf), ("next", "https://evil.example/")]
                ).status == .badRequest)
            #expect(
                try await browser.post(
                    "/dialog/account/continue", form: [("csrf_token", csrf), ("next", "//evil.example/dialog/")]
                ).status == .badRequest)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .checkpointed)
            // The page shown after a password is passed by its own Continue (the login went through a page, so
            // the browser holds the session the page started).
            let relogin = try await browser.get("/dialog/oauth?" + query)
            let again = try await browser.submitLogin(
                page: relogin, email: "alice@example.com", password: "alice-password")
            let passed = try await browser.post(
                "/dialog/account/continue",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: again.text))),
                    ("next", try #require(Browser.hiddenValue("next", in: again.text))),
                ])
            #expect(passed.status == .seeOther)
            let consent = try await browser.get(try #require(passed.location))
            #expect(consent.text.contains(#"action="/dialog/oauth/consent""#))
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .active)
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test func anUnconfirmedPersonIsAskedToConfirmAndDevelopmentModeConfirmsAtOnce() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.accounts.setAccountState(of: server.alice, to: .unconfirmed)
        try await server.run { client in
            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("state", "s1")])
            let page = try await browser.submitLogin(
                page: try await browser.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "alice-password")
            #expect(page.status == .ok)
            #expect(page.text.contains("<h1>Confirm your email</h1>"))
            #expect(page.text.contains("alice@example.com"))
            #expect(page.text.contains(#"id="confirm-now""#))
            let confirmed = try await browser.post(
                "/dialog/account/continue",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
                    ("next", try #require(Browser.hiddenValue("next", in: page.text))),
                ])
            #expect(confirmed.status == .seeOther)
            #expect(
                try await browser.get(try #require(confirmed.location)).text.contains(
                    #"action="/dialog/oauth/consent""#))
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .active)
        }
    }

    @Test func aDisabledPersonCannotLogIn() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.accounts.setAccountState(of: server.alice, to: .disabled)
        try await server.run { client in
            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("state", "s1")])
            let page = try await browser.submitLogin(
                page: try await browser.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "alice-password")
            #expect(page.status == .forbidden)
            #expect(page.text.contains("<h1>Your account has been disabled</h1>"))
            #expect(!page.text.contains("<form"))
            #expect(!(page.headers[.setCookie] ?? "").contains("gh_session="))
            #expect(browser.cookies["gh_session"] == nil)
            // The wrong password still gets the ordinary refusal, so the page reveals nothing without it.
            let wrong = try await browser.submitLogin(
                page: try await browser.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "not-her-password")
            #expect(wrong.status == .seeOther)
        }
    }

    @Test func loggedOutEndsTheBrowserSessionAndTheNextLoginClearsIt() async throws {
        let server = try await TestServer.make()
        let old = try await server.token(for: server.alice)
        try await server.run { client in
            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("state", "s1")])
            _ = try await browser.logIn(query: query, email: "alice@example.com", password: "alice-password")
            // Logged in: the dialog goes straight back to the app.
            #expect(try await browser.get("/dialog/oauth?" + query).status == .found)
            #expect(try await Self.setState(client, server.alice, "logged-out").status == .ok)
            #expect(try await browser.get("/dialog/oauth?" + query).text.contains(#"action="/dialog/oauth/login""#))
            #expect(
                try await client.execute(uri: "/v27.0/me?access_token=\(old)", method: .get).text
                    == Self.bodies[.loggedOut])
            let back = try await browser.logIn(query: query, email: "alice@example.com", password: "alice-password")
            #expect(back.hasPrefix(TestServer.redirectURI))
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .active)
            #expect(
                try await client.execute(uri: "/v27.0/me?access_token=\(old)", method: .get).text
                    == Self.bodies[.loggedOut])
        }
    }

    /// Development mode's "Who do you want to be?" picker logs in too, so it meets the same pages.
    @Test func pickingAPersonInDevelopmentModeMeetsTheirPage() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.accounts.setAccountState(of: server.alice, to: .unconfirmed)
        try await server.run { client in
            let browser = Browser(client)
            let login = try await browser.get("/dialog/oauth?" + DialogFlowTests.query(server, [("state", "s1")]))
            let picked = try await browser.post(
                "/dialog/oauth/pick",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: login.text))),
                    ("dialog", try #require(Browser.hiddenValue("dialog", in: login.text))),
                    ("user_id", server.alice.id),
                ])
            #expect(picked.status == .ok)
            #expect(picked.text.contains("<h1>Confirm your email</h1>"))
        }
    }

    /// The other password forms meet the same pages: the device login and the settings login.
    @Test func theDeviceAndSettingsLoginsMeetTheStatesPages() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.accounts.setAccountState(of: server.alice, to: .checkpointed)
        _ = try await server.services.accounts.setAccountState(of: server.bob, to: .disabled)
        try await server.run { client in
            let device = Browser(client)
            let form = try await device.get("/device?user_code=ABCD2345")
            let page = try await device.post(
                "/device/signin",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: form.text))),
                    ("dialog", try #require(Browser.hiddenValue("dialog", in: form.text))),
                    ("email", "alice@example.com"), ("password", "alice-password"),
                ])
            #expect(page.status == .ok)
            #expect(page.text.contains(#"id="checkpoint-continue""#))
            #expect(Browser.hiddenValue("next", in: page.text) == "/device?user_code=ABCD2345")
            let passed = try await device.post(
                "/dialog/account/continue",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
                    ("next", "/device?user_code=ABCD2345"),
                ])
            #expect(passed.location == "/device?user_code=ABCD2345")
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .active)

            let settings = Browser(client)
            let login = try await settings.get("/login?next=%2Fsettings%2Fapps")
            let refused = try await settings.post(
                "/login",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: login.text))),
                    ("next", "/settings/apps"),
                    ("email", "bob@example.com"), ("password", "bob-password"),
                ])
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("<h1>Your account has been disabled</h1>"))
            #expect(settings.cookies["gh_session"] == nil)
        }
    }

    @Test func theConsoleSetsTheStateWithItsCSRFToken() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/users/\(server.alice.id)")
            #expect(page.text.contains(#"action="/console/users/\#(server.alice.id)/state""#))
            #expect(page.text.contains(#"<option value="active" selected>"#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            #expect(
                try await browser.post(
                    "/console/users/\(server.alice.id)/state", form: [("csrf_token", "forged"), ("state", "disabled")]
                ).status == .forbidden)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .active)
            let set = try await browser.post(
                "/console/users/\(server.alice.id)/state", form: [("csrf_token", csrf), ("state", "disabled")])
            #expect(set.status == .seeOther)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.accountState == .disabled)
            #expect(
                try await browser.get("/console/users/\(server.alice.id)").text.contains(
                    #"<option value="disabled" selected>"#))
        }
    }
}
