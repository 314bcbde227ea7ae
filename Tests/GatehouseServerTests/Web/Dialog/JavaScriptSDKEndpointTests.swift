import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 33: what `/sdk.js` talks to, over HTTP (the browser tests drive the script itself in Chromium).
@Suite struct JavaScriptSDKEndpointTests {
    static let page = "https://shop.example"
    static var arbiter: String {
        JavaScriptSDKArbiter.path + "?" + FormEncoding.encode([("origin", page), ("relation", "opener")])
    }

    /// The test app, listing the shop's pages among its JavaScript SDK domains.
    static func server() async throws -> TestServer {
        let server = try await TestServer.make()
        var app = server.app
        app.jsSDKDomains = [page + "/"]
        try await server.services.storage.apps.update(app)
        return server
    }

    static func popupQuery(_ server: TestServer, origin: String = page, scope: String = "email") -> String {
        FormEncoding.encode([
            ("client_id", server.app.id), ("display", "popup"), ("response_type", "token,signed_request,graph_domain"),
            (
                "redirect_uri",
                JavaScriptSDKArbiter.path + "?" + FormEncoding.encode([("origin", origin), ("relation", "opener")])
            ),
            ("scope", scope), ("return_scopes", "true"), ("state", "s-1"), ("sdk", "joey"),
        ])
    }

    func get(_ client: any TestClientProtocol, _ uri: String, origin: String? = page, cookies: Browser? = nil)
        async throws -> TestResponse
    {
        var headers = cookies?.cookieHeaders() ?? HTTPFields()
        if let origin { headers[.origin] = origin }
        return try await client.execute(uri: uri, method: .get, headers: headers, body: nil)
    }

    @Test func theScriptIsOneCachedFileWithAnETag() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let plain = try await client.execute(uri: "/sdk.js", method: .get)
            #expect(plain.status == .ok)
            #expect(plain.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(plain.headers[.cacheControl] == "public, max-age=86400")
            let etag = try #require(plain.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.count == 34)
            #expect(plain.body.readableBytes < 40_000)
            #expect(plain.text.contains("window.FB = {"))
            for locale in ["en_US", "pt_BR"] {
                let localized = try await client.execute(uri: "/\(locale)/sdk.js", method: .get)
                #expect(localized.status == .ok)
                #expect(localized.headers[.eTag] == etag)
                #expect(localized.text == plain.text)
            }
            #expect(try await client.execute(uri: "/english/sdk.js", method: .get).status == .notFound)
            let cached = try await client.execute(uri: "/en_US/sdk.js", method: .get, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
            #expect(cached.headers[.eTag] == etag)
        }
    }

    @Test func theHandBackPageRunsOneSameOriginScriptAndNamesAPageOrigin() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let page = try await client.execute(uri: Self.arbiter, method: .get)
            #expect(page.status == .ok)
            #expect(
                page.headers[.contentSecurityPolicy]
                    == "default-src 'none'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
            )
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.text.contains(#"<script src="/static/xd_arbiter.js"></script>"#))
            #expect(page.text.components(separatedBy: "<script").count == 2)
            let script = try await client.execute(uri: "/static/xd_arbiter.js", method: .get)
            #expect(script.status == .ok)
            #expect(
                script.text.contains("window.opener.postMessage({ gatehouse: 'xd_arbiter', result: result }, origin)"))
            for bad in ["javascript:alert(1)", "https://shop.example/path", ""] {
                let refused = try await client.execute(
                    uri: JavaScriptSDKArbiter.path + "?origin=" + FormEncoding.escape(bad), method: .get)
                #expect(refused.status == .badRequest, "\(bad)")
            }
        }
    }

    @Test func aPageTheAppDoesNotListIsRefusedByTheDialogAndTheStatus() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let dialog = try await client.execute(
                uri: "/dialog/oauth?" + Self.popupQuery(server, origin: "https://evil.example"), method: .get)
            #expect(dialog.status == .badRequest)
            #expect(dialog.headers[.location] == nil)
            #expect(dialog.text.contains("Can&#39;t load URL") || dialog.text.contains("Can't load URL"))
            let feed = try await client.execute(
                uri: "/dialog/feed?"
                    + FormEncoding.encode([
                        ("app_id", server.app.id),
                        ("redirect_uri", JavaScriptSDKArbiter.path + "?origin=https%3A%2F%2Fevil.example"),
                    ]), method: .get)
            #expect(feed.status == .badRequest)
            let status = try await get(
                client, "/x/oauth/status?client_id=\(server.app.id)", origin: "https://evil.example")
            #expect(status.status == .forbidden)
            #expect(status.json["error"]?["code"] == 191)
            #expect(status.headers[.accessControlAllowOrigin] == "https://evil.example")
            let noOrigin = try await get(client, "/x/oauth/status?client_id=\(server.app.id)", origin: nil)
            #expect(noOrigin.status == .forbidden)
            #expect(noOrigin.headers[.accessControlAllowOrigin] == nil)
            let noApp = try await get(client, "/x/oauth/status?client_id=123")
            #expect(noApp.status == .badRequest)
            #expect(noApp.text == #"{"error":{"message":"Invalid App ID: 123","type":"OAuthException","code":101}}"#)
        }
    }

    @Test func thePopupLoginReturnsToTheHandBackPageAndTheStatusFollowsTheSession() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let unknown = try await get(client, "/x/oauth/status?client_id=\(server.app.id)")
            #expect(unknown.text == #"{"status":"unknown","authResponse":null}"#)
            #expect(unknown.headers[.accessControlAllowOrigin] == Self.page)
            #expect(unknown.headers[.accessControlAllowCredentials] == "true")
            #expect(unknown.headers[.cacheControl] == "no-store")

            // Logged in to Gatehouse, not to the app: not_authorized.
            let browser = Browser(client)
            let login = try await browser.get("/dialog/oauth?" + Self.popupQuery(server))
            _ = try await browser.submitLogin(page: login, email: "alice@example.com", password: "alice-password")
            let notAuthorized = try await get(client, "/x/oauth/status?client_id=\(server.app.id)", cookies: browser)
            #expect(notAuthorized.text == #"{"status":"not_authorized","authResponse":null}"#)

            let location = try await browser.logIn(
                query: Self.popupQuery(server), email: "alice@example.com", password: "alice-password",
                grant: ["public_profile"])
            #expect(location.hasPrefix(Self.arbiter + "#access_token="))
            let answer = redirectParameters(location)
            let scoped = try await server.scopedID(server.alice)
            #expect(answer["granted_scopes"] == "public_profile")
            #expect(answer["denied_scopes"] == "email")
            #expect(answer["state"] == "s-1")
            #expect(answer["graph_domain"] == "facebook")
            #expect(answer["code"] == nil)
            let payload = try SignedRequest.parse(try #require(answer["signed_request"]), secret: server.app.secret)
            #expect(payload["user_id"] == .string(scoped))
            let code = try #require(payload["code"]?.stringValue)

            // The page's back end redeems the signed_request's code with redirect_uri="", once (facebook-sdk).
            let exchange =
                "/v2.8/oauth/access_token?"
                + FormEncoding.encode([
                    ("code", code), ("redirect_uri", ""), ("client_id", server.app.id),
                    ("client_secret", server.app.secret),
                ])
            let redeemed = try await client.execute(uri: exchange, method: .get)
            #expect(redeemed.status == .ok)
            #expect(redeemed.json["access_token"]?.stringValue?.hasPrefix("EAAG") == true)
            #expect(try await client.execute(uri: exchange, method: .get).status == .badRequest)

            let connected = try await get(client, "/x/oauth/status?client_id=\(server.app.id)", cookies: browser)
            let auth = try #require(connected.json["authResponse"])
            #expect(connected.json["status"] == "connected")
            #expect(
                auth.objectValue?.keys == [
                    "accessToken", "expiresIn", "data_access_expiration_time", "signedRequest", "userID", "graphDomain",
                ])
            #expect(auth["userID"] == .string(scoped))
            #expect(auth["expiresIn"] == 7200)
            #expect(auth["data_access_expiration_time"] == .int(1_800_000_000 + 90 * 86400))
            let statusCode = try SignedRequest.parse(
                try #require(auth["signedRequest"]?.stringValue), secret: server.app.secret)["code"]?.stringValue
            let fromStatus = try await client.execute(
                uri: "/oauth/access_token?"
                    + FormEncoding.encode([
                        ("code", try #require(statusCode)), ("redirect_uri", ""), ("client_id", server.app.id),
                        ("client_secret", server.app.secret),
                    ]), method: .get)
            #expect(fromStatus.status == .ok)

            // FB.logout: the session ends and the page's token is revoked.
            let token = try #require(auth["accessToken"]?.stringValue)
            var headers = browser.cookieHeaders()
            headers[.origin] = Self.page
            headers[.contentType] = "application/x-www-form-urlencoded"
            let logout = try await client.execute(
                uri: "/x/oauth/logout", method: .post, headers: headers,
                body: ByteBuffer(string: FormEncoding.encode([("client_id", server.app.id), ("access_token", token)])))
            #expect(logout.text == #"{"success":true}"#)
            // `__Host-gh_session` here: the test server's public URL is not loopback, so its cookies are Secure.
            #expect(logout.headers[.setCookie]?.hasPrefix("__Host-gh_session=;") == true)
            #expect(logout.headers[.setCookie]?.contains("Max-Age=0") == true)
            browser.absorb(logout)
            let me = try await client.execute(uri: "/me?access_token=" + token, method: .get)
            #expect(me.json["error"]?["code"] == 190)
            let after = try await get(client, "/x/oauth/status?client_id=\(server.app.id)", cookies: browser)
            #expect(after.text == #"{"status":"unknown","authResponse":null}"#)
        }
    }

    @Test func theSettingIsCheckedWhereverItIsWritten() async throws {
        #expect(JavaScriptSDKDomains.registrationProblem(["https://shop.example/", "http://127.0.0.1:3000"]) == nil)
        #expect(JavaScriptSDKDomains.registrationProblem(["shop.example"]) != nil)
        #expect(JavaScriptSDKDomains.registrationProblem(Array(repeating: "https://a.example", count: 101)) != nil)
        var app = AppRecord(
            id: "1", secret: "s", clientToken: "c", name: "A", redirectURIs: [], createdAt: Date(),
            jsSDKDomains: ["https://Shop.example:443/"])
        #expect(JavaScriptSDKDomains.allows("https://shop.example", for: app))
        #expect(!JavaScriptSDKDomains.allows("https://www.shop.example", for: app))
        #expect(!JavaScriptSDKDomains.allows("http://shop.example", for: app))
        app.jsSDKDomains = ["http://127.0.0.1:3000"]
        #expect(JavaScriptSDKDomains.allows("http://127.0.0.1:3000", for: app))
        #expect(!JavaScriptSDKDomains.allows("http://127.0.0.1:3001", for: app))
        #expect(
            JavaScriptSDKArbiter.pageOrigin(
                "https://evil.example/x/connect/xd_arbiter?origin=http%3A%2F%2F127.0.0.1%3A3000") == nil)

        let server = try await TestServer.make()
        try await server.v1 { api in
            let bad = try await api.patch("/apps/\(server.app.id)", #"{"js_sdk_domains":["shop.example"]}"#)
            #expect(bad.status == .badRequest)
            #expect(bad.json["field"] == "js_sdk_domains")
            let good = try await api.patch("/apps/\(server.app.id)", #"{"js_sdk_domains":["https://shop.example"]}"#)
            #expect(good.json["js_sdk_domains"] == ["https://shop.example"])
            #expect(
                try await server.services.storage.apps.find(id: server.app.id)?.jsSDKDomains == ["https://shop.example"]
            )
        }
    }
}
