import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite struct DialogFlowTests {
    static func query(_ server: TestServer, _ extra: [(String, String)] = [], redirect: String = TestServer.redirectURI)
        -> String
    {
        FormEncoding.encode([("client_id", server.app.id), ("redirect_uri", redirect)] + extra)
    }

    @Test func unknownAppAndBadRedirectGetAnErrorPageNeverARedirect() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let unknown = try await client.execute(
                uri: "/dialog/oauth?client_id=999&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback", method: .get)
            #expect(unknown.status == .badRequest)
            #expect(unknown.headers[.location] == nil)
            #expect(unknown.headers[.contentType] == "text/html; charset=utf-8")
            #expect(unknown.text.contains("This app does not exist"))

            for bad in [
                "https://app.example.com/callback/", "https://evil.example.com/callback",
                "https://app.example.com/callback?x=1",
            ] {
                let r = try await client.execute(
                    uri: "/dialog/oauth?" + Self.query(server, redirect: bad), method: .get)
                #expect(r.status == .badRequest)
                #expect(r.headers[.location] == nil)
                #expect(r.text.contains("is not registered for app \(server.app.id)"))
                #expect(r.text.contains("gatehouse apps update"))
            }
            let missing = try await client.execute(uri: "/dialog/oauth?client_id=\(server.app.id)", method: .get)
            #expect(missing.status == .badRequest)
            let scopes = try await client.execute(
                uri: "/dialog/oauth?" + Self.query(server, [("scope", "email,not_a_permission")]), method: .get)
            #expect(scopes.status == .badRequest)
            #expect(scopes.text.contains("Invalid Scopes: not_a_permission"))
        }
    }

    @Test func loginPageCarriesSecurityHeadersAndACSRFCookie() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for path in ["/dialog/oauth?", "/v19.0/dialog/oauth?", "/v2.8/dialog/oauth?"] {
                let page = try await client.execute(uri: path + Self.query(server, [("scope", "email")]), method: .get)
                #expect(page.status == .ok)
                #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(page.headers[.cacheControl] == "no-store")
                let cookie = page.headers[.setCookie] ?? ""
                #expect(cookie.hasPrefix("gh_csrf="))
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Lax"))
                #expect(page.text.contains("Log in to continue to <strong>Test App</strong>"))
            }
            let badVersion = try await client.execute(uri: "/vX/dialog/oauth?" + Self.query(server), method: .get)
            #expect(badVersion.status == .notFound)
        }
    }

    @Test func formsWithoutTheCSRFTokenAreRefused() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await browser.get("/dialog/oauth?" + Self.query(server))
            let forged = try await browser.post(
                "/dialog/oauth/login",
                form: [
                    ("csrf_token", "wrong"), ("dialog", Self.query(server)), ("email", "alice@example.com"),
                    ("password", "alice-password"),
                ])
            #expect(forged.status == .forbidden)
            #expect(browser.cookies["__Host-gh_session"] == nil)
            let consent = try await browser.post(
                "/dialog/oauth/consent", form: [("dialog", Self.query(server)), ("action", "continue")])
            #expect(consent.status == .forbidden)
        }
    }

    @Test func wrongPasswordRedirectsBackWithAnError() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/dialog/oauth?" + Self.query(server))
            let posted = try await browser.submitLogin(page: page, email: "alice@example.com", password: "nope")
            #expect(posted.status == .seeOther)
            #expect(browser.cookies["__Host-gh_session"] == nil)
            let again = try await browser.get(posted.location!)
            #expect(again.status == .unauthorized)
            #expect(again.text.contains("The email or password you entered is incorrect."))
        }
    }

    @Test func codeFlowEchoesStateAndAppendsTheFacebookFragment() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let state = #"{"challenge":"a+b/c=","x":"é &?"}"#
            let page = try await browser.get(
                "/dialog/oauth?"
                    + Self.query(
                        server, [("scope", "email,user_friends"), ("state", state), ("return_scopes", "true")]))
            let posted = try await browser.submitLogin(
                page: page, email: "ALICE@example.com", password: "alice-password")
            #expect(posted.status == .seeOther)
            let session = posted.headers[.setCookie] ?? ""
            #expect(session.hasPrefix("__Host-gh_session="))
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Lax") && session.contains("Path=/"))
            // The test server's public URL is http://gatehouse.test: not loopback, so cookies are Secure.
            #expect(session.contains("; Secure"))
            let consent = try await browser.get(posted.location!)
            #expect(consent.text.contains("Test App</strong> is requesting access to:"))
            #expect(Browser.offered(in: consent.text) == ["public_profile", "email", "user_friends"])
            #expect(consent.text.contains("value=\"public_profile\" checked disabled"))
            let done = try await browser.submitConsent(page: consent, permissions: ["public_profile", "user_friends"])
            #expect(done.status == .seeOther)
            let location = try #require(done.location)
            #expect(location.hasPrefix(TestServer.redirectURI + "?code=AQ"))
            #expect(location.hasSuffix("#_=_"))
            let params = redirectParameters(location)
            #expect(params["state"] == state)
            #expect(params["granted_scopes"] == "public_profile,user_friends")
            #expect(params["denied_scopes"] == "email")
            #expect(params["access_token"] == nil)
            let stored = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            #expect(stored?.granted == ["public_profile", "user_friends"])
            #expect(stored?.declined == ["email"])
        }
    }

    @Test func cancelRedirectsWithFacebooksDenialParameters() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/dialog/oauth?" + Self.query(server, [("state", "s1")]))
            let posted = try await browser.submitLogin(
                page: page, email: "alice@example.com", password: "alice-password")
            let consent = try await browser.get(posted.location!)
            let cancelled = try await browser.submitConsent(page: consent, permissions: [], cancel: true)
            #expect(cancelled.status == .seeOther)
            #expect(
                cancelled.location == TestServer.redirectURI
                    + "?error=access_denied&error_code=200&error_description=Permissions+error&error_reason=user_denied&state=s1#_=_"
            )
            #expect(try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id) == nil)
        }
    }

    @Test func singleSignOnSkipsThePasswordAndGrantedPermissionsAreNotReasked() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(
            name: "Second", redirectURIs: ["https://second.example/cb"])
        try await server.run { client in
            let browser = Browser(client)
            _ = try await browser.logIn(
                query: Self.query(server, [("scope", "email")]), email: "alice@example.com", password: "alice-password")
            let second = try await browser.get(
                "/dialog/oauth?"
                    + FormEncoding.encode([("client_id", other.id), ("redirect_uri", "https://second.example/cb")]))
            #expect(second.text.contains("Second</strong> is requesting access to:"))
            #expect(!second.text.contains("type=\"password\""))
            let again = try await browser.get(
                "/dialog/oauth?" + Self.query(server, [("scope", "email"), ("state", "x")]))
            #expect(again.status == .found)
            #expect(redirectParameters(again.location!)["code"] != nil)
            #expect(again.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
        }
    }

    @Test func declinedPermissionsComeBackOnlyWithRerequest() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await browser.logIn(
                query: Self.query(server, [("scope", "email")]), email: "alice@example.com", password: "alice-password",
                grant: ["public_profile"])
            let plain = try await browser.get(
                "/dialog/oauth?" + Self.query(server, [("scope", "email"), ("return_scopes", "true")]))
            #expect(plain.status == .found)
            #expect(redirectParameters(plain.location!)["denied_scopes"] == "email")
            let re = try await browser.get(
                "/dialog/oauth?" + Self.query(server, [("scope", "email"), ("auth_type", "rerequest")]))
            #expect(Browser.offered(in: re.text).contains("email"))
            let done = try await browser.submitConsent(page: re, permissions: ["email"])
            #expect(redirectParameters(done.location!)["code"] != nil)
            #expect(
                try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)?.granted
                    == ["public_profile", "email"])
        }
    }

    @Test func reauthenticateAsksForThePasswordAgain() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await browser.logIn(
                query: Self.query(server), email: "alice@example.com", password: "alice-password")
            let page = try await browser.get(
                "/dialog/oauth?" + Self.query(server, [("auth_type", "reauthenticate"), ("auth_nonce", "n-1")]))
            #expect(page.text.contains("asks you to enter your password again"))
            #expect(page.text.contains("value=\"alice@example.com\""))
            let posted = try await browser.submitLogin(
                page: page, email: "alice@example.com", password: "alice-password")
            let back = try await browser.get(posted.location!)
            #expect(back.status == .found)
            #expect(redirectParameters(back.location!)["code"] != nil)
        }
    }

    @Test func dataAccessExpiresAfterNinetyDaysAndReauthorizeRenewsIt() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            _ = try await browser.logIn(
                query: Self.query(server, [("scope", "email")]), email: "alice@example.com", password: "alice-password")
            server.clock.advance(by: 91 * 86400)
            let old = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            // The browser session (30 days) has lapsed too, so the person logs in again first.
            let login = try await browser.get(
                "/dialog/oauth?" + Self.query(server, [("scope", "email"), ("auth_type", "reauthorize")]))
            let posted = try await browser.submitLogin(
                page: login, email: "alice@example.com", password: "alice-password")
            let page = try await browser.get(posted.location!)
            #expect(page.text.contains("Your data access for Test App has expired"))
            let done = try await browser.submitConsent(page: page, permissions: ["email"])
            #expect(done.status == .seeOther)
            let renewed = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            #expect(renewed!.lastLoginAt > old!.lastLoginAt)
        }
    }

    @Test func unreviewedPermissionsComeBackDeclinedForOrdinaryPeople() async throws {
        let server = try await TestServer.make()
        try await server.services.storage.apps.setRole(appID: server.app.id, userID: server.bob.id, role: .tester)
        try await server.run { client in
            let alice = Browser(client)
            let location = try await alice.logIn(
                query: Self.query(server, [("scope", "user_birthday"), ("return_scopes", "true")]),
                email: "alice@example.com", password: "alice-password", grant: ["public_profile", "user_birthday"])
            #expect(redirectParameters(location)["granted_scopes"] == "public_profile")
            #expect(redirectParameters(location)["denied_scopes"] == "user_birthday")
            let bob = Browser(client)
            let bobs = try await bob.logIn(
                query: Self.query(server, [("scope", "user_birthday"), ("return_scopes", "true")]),
                email: "bob@example.com", password: "bob-password")
            #expect(redirectParameters(bobs)["granted_scopes"] == "public_profile,user_birthday")
        }
    }

    @Test func tokenFlowsUseTheFragment() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let location = try await browser.logIn(
                query: Self.query(server, [("response_type", "token"), ("state", "st")]), email: "alice@example.com",
                password: "alice-password")
            #expect(location.hasPrefix(TestServer.redirectURI + "#access_token=EAAG"))
            let p = redirectParameters(location)
            #expect(p["expires_in"] == "7200")
            #expect(p["data_access_expiration_time"] == String(1_800_000_000 + 90 * 86400))
            #expect(p["state"] == "st")
            #expect(p["code"] == nil)

            let ios = "id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce"
            let uri = "fb\(server.app.id)://authorize/"
            let verifier = String(repeating: "v", count: 96)
            let again = try await browser.get(
                "/v27.0/dialog/oauth?"
                    + Self.query(
                        server,
                        [
                            ("response_type", ios), ("scope", "email,openid"), ("sdk", "ios"),
                            ("return_scopes", "true"), ("nonce", "abc"),
                            ("code_challenge", PKCE.challenge(verifier: verifier, method: "S256")!),
                            ("code_challenge_method", "S256"), ("e2e", "{}"),
                        ], redirect: uri))
            let consent = try await browser.submitConsent(page: again, permissions: ["email"])
            let iosLocation = try #require(consent.location)
            #expect(iosLocation.hasPrefix(uri + "#"))
            let q = redirectParameters(iosLocation)
            #expect(q["access_token"]?.hasPrefix("EAAG") == true)
            #expect(q["graph_domain"] == "facebook")
            #expect(q["id_token"]?.split(separator: ".").count == 3)  // verified in OIDCTests
            #expect(q["granted_scopes"] == "public_profile,email")
            let payload = SignedRequest.unverifiedPayload(q["signed_request"]!)
            #expect(payload?["user_id"]?.stringValue == (try await server.scopedID(server.alice)))
            #expect(payload?["algorithm"]?.stringValue == "HMAC-SHA256")
            _ = try SignedRequest.parse(q["signed_request"]!, secret: server.app.secret)
        }
    }

    @Test func loopbackRedirectsMayUseAnyPort() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let location = try await browser.logIn(
                query: Self.query(server, redirect: "http://127.0.0.1:54321/cb"), email: "alice@example.com",
                password: "alice-password")
            #expect(location.hasPrefix("http://127.0.0.1:54321/cb?code="))
        }
    }
}
