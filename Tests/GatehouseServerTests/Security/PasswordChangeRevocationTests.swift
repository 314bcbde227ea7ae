import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 27 finding 6: a password changed through any path (a scenario, the console) signs the person out as
/// Facebook does: their tokens answer 190/460 and their browser sessions end. A scenario that leaves `password`
/// out keeps the person's password, and one that changes an app's secret revokes the app's app tokens.
@Suite struct PasswordChangeRevocationTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    /// Alice as a scenario states her (the fields the file leaves out are kept), with `extra` fields.
    static func aliceScenario(_ server: TestServer, extra: String = "") -> String {
        """
        people:
          alice: {id: "\(server.alice.id)", email: alice@example.com, first_name: Alice, last_name: Anders\(extra)}
        """
    }

    static func applyScenario(_ client: any TestClientProtocol, _ yaml: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/admin/api/v1/scenario", method: .post, headers: json,
            body: ByteBuffer(string: JSONValue.object(["yaml": .string(yaml), "file": "change.yaml"]).serialized()))
    }

    /// A browser with a live Gatehouse session for Alice (logged in through the dialog), and the dialog's query.
    static func signedInBrowser(_ server: TestServer, _ client: any TestClientProtocol) async throws -> (
        Browser, String
    ) {
        let browser = Browser(client)
        let query = DialogFlowTests.query(server)
        _ = try await browser.logIn(query: query, email: "alice@example.com", password: "alice-password")
        // Signed in: the dialog goes straight back to the app, without asking for the password.
        #expect(try await browser.get("/dialog/oauth?" + query).status == .found)
        return (browser, query)
    }

    /// `/me` with `token` answers exactly Facebook's 190/460.
    static func expectPasswordChanged(_ client: any TestClientProtocol, _ token: String) async throws {
        let me = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
        #expect(me.status == .badRequest)
        let error = me.json["error"]
        #expect(
            error?["message"]?.stringValue
                == "Error validating access token: The session has been invalidated because the user changed their "
                + "password or Facebook has changed the session for security reasons."
        )
        #expect(error?["type"]?.stringValue == "OAuthException")
        #expect(error?["code"]?.intValue == 190 && error?["error_subcode"]?.intValue == 460)
    }

    /// What every password change must leave behind, whatever its path.
    static func expectSignedOut(
        _ server: TestServer, _ client: any TestClientProtocol, token: String, browser: Browser, query: String,
        newPassword: String
    ) async throws {
        let alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
        #expect(alice.passwordChangedAt == server.clock.now())
        #expect(try await server.services.passwords.verify(newPassword, hash: alice.passwordHash))
        try await expectPasswordChanged(client, token)
        #expect(
            try await server.services.storage.tokens.live(appID: nil, userID: server.alice.id, now: server.clock.now())
                .isEmpty)
        // The browser's session ended: the dialog asks for the password again.
        let dialog = try await browser.get("/dialog/oauth?" + query)
        #expect(dialog.status == .ok && dialog.text.contains(#"action="/dialog/oauth/login""#))
        // A token minted after the change works.
        let fresh = try await server.token(for: server.alice)
        #expect(try await client.execute(uri: "/v27.0/me?access_token=\(fresh)", method: .get).status == .ok)
    }

    @Test func aScenarioThatChangesAPasswordSignsThePersonOut() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let token = try await server.token(for: server.alice)
            let (browser, query) = try await Self.signedInBrowser(server, client)
            server.clock.advance(by: 5)
            let applied = try await Self.applyScenario(
                client, Self.aliceScenario(server, extra: ", password: alice-new-password"))
            #expect(applied.status == .ok)
            #expect(
                applied.json["changes"] == [
                    "people.alice: password differs (the new one signs alice out: tokens answer 190/460)"
                ])
            try await Self.expectSignedOut(
                server, client, token: token, browser: browser, query: query, newPassword: "alice-new-password")
        }
    }

    /// bcrypt takes time: a hasher that moves the server's clock on while it hashes.
    final class SlowHasher: PasswordHasher, @unchecked Sendable {
        private let inner = BcryptPasswordHasher(cost: 4)
        let lock = NSLock()
        var clock: AdjustableClock?
        func hash(_ password: String) async throws -> String {
            lock.withLock { clock }?.advance(by: 2)
            return try await inner.hash(password)
        }
        func verify(_ password: String, hash: String) async throws -> Bool {
            try await inner.verify(password, hash: hash)
        }
        func dummyHash() async throws -> String { try await inner.dummyHash() }
    }

    @Test func aTokenTheSameScenarioAddsOutlivesThePasswordChange() async throws {
        let hasher = SlowHasher()
        let server = try await TestServer.make(passwords: hasher)
        hasher.lock.withLock { hasher.clock = server.clock }
        try await server.run { client in
            let old = try await server.token(for: server.alice)
            server.clock.advance(by: 5)
            let yaml = """
                apps:
                  test: {id: "\(server.app.id)", name: Test App, redirect_uris: ["\(TestServer.redirectURI)", "http://127.0.0.1/cb"], approved_permissions: [user_friends]}
                """ + "\n" + Self.aliceScenario(server, extra: ", password: alice-new-password") + """

                    grants:
                      - {app: test, person: alice, granted: [public_profile]}
                    tokens:
                      - {app: test, person: alice, value: EAAGtestAliceAfterTheChange0000000001}
                    """
            let applied = try await Self.applyScenario(client, yaml)
            #expect(applied.status == .ok, "\(applied.text)")
            // The change is dated when the scenario's token is issued, although hashing took two seconds.
            #expect(
                try await client.execute(
                    uri: "/v27.0/me?access_token=EAAGtestAliceAfterTheChange0000000001", method: .get
                ).status == .ok)
            try await Self.expectPasswordChanged(client, old)
        }
    }

    @Test func aScenarioThatLeavesPasswordOutKeepsIt() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let token = try await server.token(for: server.alice)
            server.clock.advance(by: 5)
            // Before the fix the left-out password was "alice-password" and compared: a person whose password had
            // changed since was reset to it. Here Alice's is something else, and the file only renames her.
            let changed = try await server.services.accounts.changePassword(of: server.alice, to: "chosen-by-alice")
            let fresh = try await server.token(for: server.alice)
            server.clock.advance(by: 5)
            let applied = try await Self.applyScenario(
                client,
                Self.aliceScenario(server).replacingOccurrences(of: "first_name: Alice", with: "first_name: Alicia"))
            #expect(
                applied.json["changes"] == [#"people.alice: first_name is "Alice" on the server, "Alicia" in the file"#]
            )
            let alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
            #expect(
                alice.firstName == "Alicia" && alice.passwordHash == changed.passwordHash
                    && alice.passwordChangedAt == changed.passwordChangedAt)
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(fresh)", method: .get).status == .ok)
            try await Self.expectPasswordChanged(client, token)
            // Applying the same file again finds nothing to do.
            #expect(
                try await Self.applyScenario(
                    client,
                    Self.aliceScenario(server).replacingOccurrences(of: "first_name: Alice", with: "first_name: Alicia")
                ).json["changes"] == [])
        }
    }

    @Test func theConsoleChangesAPasswordWithItsCSRFTokenAndSignsThePersonOut() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let token = try await server.token(for: server.alice)
            let (browser, query) = try await Self.signedInBrowser(server, client)
            server.clock.advance(by: 5)
            let console = Browser(client)
            let page = try await console.get("/console/users/\(server.alice.id)")
            #expect(page.text.contains(#"action="/console/users/\#(server.alice.id)/password""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            // Without the form's CSRF token nothing changes.
            let forged = try await console.post(
                "/console/users/\(server.alice.id)/password", form: [("password", "mallory-password")])
            #expect(forged.status == .forbidden)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.passwordChangedAt == nil)
            let short = try await console.post(
                "/console/users/\(server.alice.id)/password", form: [("csrf_token", csrf), ("password", "abc")])
            #expect(short.status == .badRequest && short.text.contains("passwords need at least 6 characters"))

            let changed = try await console.post(
                "/console/users/\(server.alice.id)/password",
                form: [("csrf_token", csrf), ("password", "alice-console-password")])
            #expect(changed.status == .seeOther && changed.location == "/console/users/\(server.alice.id)?notice=saved")
            try await Self.expectSignedOut(
                server, client, token: token, browser: browser, query: query, newPassword: "alice-console-password")
        }
    }

    /// The admin API's `PATCH /people/{id}` is the path tests and the remote CLI use; it signs the person out too.
    @Test func theAdminAPIChangesAPasswordAndSignsThePersonOut() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let token = try await server.token(for: server.alice)
            let (browser, query) = try await Self.signedInBrowser(server, client)
            server.clock.advance(by: 5)
            let api = V1Client(client: client)
            let short = try await api.patch("/people/\(server.alice.id)", #"{"password":"abc"}"#)
            #expect(short.status == .badRequest)
            #expect(try await server.services.storage.users.find(id: server.alice.id)?.passwordChangedAt == nil)
            let changed = try await api.patch("/people/\(server.alice.id)", #"{"password":"alice-api-password"}"#)
            #expect(changed.status == .ok)
            try await Self.expectSignedOut(
                server, client, token: token, browser: browser, query: query, newPassword: "alice-api-password")
        }
    }

    /// A code issued under the old password would mint a token dated after the change, which 460 cannot catch.
    @Test func aCodeIssuedBeforeAPasswordChangeIsNoLongerRedeemed() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (before, after) = ("code-issued-before-the-change", "code-issued-after-the-change")
            func insert(_ code: String, _ id: String) async throws {
                try await server.services.storage.codes.insert(
                    AuthCodeRecord(
                        id: id, codeHash: SecretHash.sha256Hex(code), appID: server.app.id, userID: server.alice.id,
                        redirectURI: TestServer.redirectURI, scopes: ["public_profile"], createdAt: server.clock.now(),
                        expiresAt: server.clock.now().addingTimeInterval(600)))
            }
            func exchange(_ code: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/v27.0/oauth/access_token?"
                        + FormEncoding.encode([
                            ("client_id", server.app.id), ("client_secret", server.app.secret),
                            ("redirect_uri", TestServer.redirectURI), ("code", code),
                        ]), method: .get)
            }
            try await insert(before, "c-before")
            server.clock.advance(by: 5)
            _ = try await server.services.accounts.changePassword(
                of: try #require(try await server.services.storage.users.find(id: server.alice.id)),
                to: "alice-new-password")
            server.clock.advance(by: 5)
            try await insert(after, "c-after")
            let refused = try await exchange(before)
            #expect(refused.status == .badRequest)
            #expect(
                refused.json == [
                    "error": [
                        "message": "This authorization code has expired.", "type": "OAuthException", "code": 100,
                        "error_subcode": 36007,
                    ]
                ])
            #expect(try await exchange(after).status == .ok)
        }
    }

    @Test func aScenarioThatChangesAnAppSecretRevokesItsAppTokens() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let minted = try await client.execute(
                uri:
                    "/v27.0/oauth/access_token?client_id=\(server.app.id)&client_secret=\(server.app.secret)&grant_type=client_credentials",
                method: .get)
            let appToken = try #require(minted.json["access_token"]?.stringValue)
            let before = try await client.execute(
                uri:
                    "/v27.0/\(server.app.id)?access_token=\(appToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                method: .get)
            #expect(before.status == .ok)
            #expect(
                try await server.services.storage.tokens.live(
                    appID: server.app.id, userID: nil, now: server.clock.now()
                ).contains { $0.kind == .app })
            let yaml = """
                apps:
                  test: {id: "\(server.app.id)", name: Test App, secret: a-new-secret-0123456789abcdef, redirect_uris: ["\(TestServer.redirectURI)", "http://127.0.0.1/cb"], approved_permissions: [user_friends]}
                """
            let applied = try await Self.applyScenario(client, yaml)
            #expect(
                applied.json["changes"] == [
                    "apps.test: secret is another value on the server, another value in the file"
                ])
            #expect(
                try await server.services.storage.apps.find(id: server.app.id)?.secret
                    == "a-new-secret-0123456789abcdef")
            #expect(
                try await server.services.storage.tokens.live(
                    appID: server.app.id, userID: nil, now: server.clock.now()
                ).filter { $0.kind == .app }.isEmpty)
            let after = try await client.execute(
                uri:
                    "/v27.0/\(server.app.id)?access_token=\(appToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                method: .get)
            #expect(after.status == .badRequest)
            #expect(after.json["error"]?["code"]?.intValue == 190)
        }
    }
}
