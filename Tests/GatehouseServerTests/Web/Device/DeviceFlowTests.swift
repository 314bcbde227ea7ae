import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Facebook Login for Devices over HTTP: the device's two endpoints with exact wire shapes, and the person on `/device`.
@Suite struct DeviceFlowTests {
    static func post(_ client: any TestClientProtocol, _ path: String, _ form: [(String, String)]) async throws
        -> TestResponse
    {
        try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: FormEncoding.encode(form)))
    }

    var clientToken: (TestServer) -> String { { "\($0.app.id)|\($0.app.clientToken)" } }

    @Test func fullFlowPendingConsentTokenThenExpired() async throws {
        let server = try await TestServer.make()
        let appToken = clientToken(server)
        try await server.run { client in
            let start = try await Self.post(
                client, "/v27.0/device/login", [("access_token", appToken), ("scope", "email,user_friends")])
            #expect(start.status == .ok)
            let keys = start.json.objectValue?.pairs.map(\.0)
            #expect(keys == ["code", "user_code", "verification_uri", "expires_in", "interval"])
            #expect(start.json["verification_uri"]?.stringValue == "http://gatehouse.test/device")
            #expect(start.json["expires_in"]?.intValue == 420)
            #expect(start.json["interval"]?.intValue == 5)
            let code = try #require(start.json["code"]?.stringValue)
            let userCode = try #require(start.json["user_code"]?.stringValue)

            // Before the person acts: pending, exactly as Facebook words it.
            let pending = try await Self.post(
                client, "/device/login_status", [("access_token", appToken), ("code", code)])
            #expect(pending.status == .badRequest)
            #expect(
                pending.text
                    == #"{"error":{"message":"This request requires the user to take a pending action","#
                    + #""type":"OAuthException","code":31,"error_subcode":1349174,"error_user_title":"Device "#
                    + #"Login Authorization Pending","error_user_msg":"User has not yet authorized your application. Continue polling."}}"#
            )
            // Again at once: too fast.
            server.clock.advance(by: 2)
            let fast = try await Self.post(
                client, "/v27.0/device/login_status", [("access_token", appToken), ("code", code)])
            #expect(
                fast.text
                    == #"{"error":{"message":"User request limit reached","type":"OAuthException","code":17,"#
                    + #""error_subcode":1349172,"error_user_title":"OAuth Device Excessive Polling","#
                    + #""error_user_msg":"Your device is polling too frequently. Space your requests with a minium interval of 5 seconds."}}"#
            )

            // The person: /device → login page → code form → consent → done.
            let browser = Browser(client)
            let login = try await browser.get("/device")
            #expect(login.text.contains("action=\"/device/signin\""))
            let signedIn = try await browser.post(
                "/device/signin",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: login.text) ?? ""),
                    ("dialog", Browser.hiddenValue("dialog", in: login.text) ?? ""),
                    ("email", "alice@example.com"), ("password", "alice-password"),
                ])
            #expect(signedIn.status == .seeOther)
            let form = try await browser.get(Browser.relative(signedIn.location ?? ""))
            #expect(form.text.contains("Enter the code shown on your device"))
            let typed = userCode.lowercased().prefix(4) + "-" + userCode.lowercased().dropFirst(4)
            let consent = try await browser.get("/device?user_code=\(typed)")
            #expect(consent.text.contains("action=\"/device/consent\""))
            #expect(Browser.offered(in: consent.text) == ["public_profile", "email", "user_friends"])
            let done = try await browser.post(
                "/device/consent",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: consent.text) ?? ""),
                    ("dialog", Browser.hiddenValue("dialog", in: consent.text) ?? ""),
                    ("action", "continue"), ("permission", "public_profile"), ("permission", "email"),
                ])
            #expect(done.status == .ok)
            #expect(done.text.contains("logged in on your device"))
            // The code cannot be used twice.
            let again = try await browser.get("/device?user_code=\(userCode)")
            #expect(again.status == .badRequest)
            #expect(again.text.contains("already been used"))

            server.clock.advance(by: 5)
            let granted = try await Self.post(
                client, "/device/login_status", [("access_token", appToken), ("code", code)])
            #expect(granted.status == .ok)
            #expect(
                granted.json.objectValue?.pairs.map(\.0) == [
                    "access_token", "expires_in", "data_access_expiration_time",
                ])
            #expect(granted.json["expires_in"]?.intValue == Int64(Lifetimes.longLivedToken))
            let token = try #require(granted.json["access_token"]?.stringValue)
            let me = try await client.execute(uri: "/me?fields=name,email&access_token=\(token)", method: .get)
            #expect(me.text == #"{"name":"Alice Anders","email":"alice@example.com"}"#)
            let perms = try await client.execute(uri: "/me/permissions?access_token=\(token)", method: .get)
            #expect(
                perms.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","#
                    + #""status":"granted"},{"permission":"user_friends","status":"declined"}]}"#
            )

            // Spent: the next poll is "expired".
            server.clock.advance(by: 5)
            let spent = try await Self.post(
                client, "/device/login_status", [("access_token", appToken), ("code", code)])
            #expect(
                spent.text
                    == #"{"error":{"message":"The session has expired","type":"OAuthException","code":463,"#
                    + #""error_subcode":1349152,"error_user_title":"Activation Code Expired","#
                    + #""error_user_msg":"The code you entered has expired. Please go back to your device for a new code and try again."}}"#
            )
        }
    }

    @Test func codesExpireByTheServerClockAndCancelIsDeclined() async throws {
        let server = try await TestServer.make()
        let appToken = clientToken(server)
        try await server.run { client in
            let first = try await Self.post(client, "/device/login", [("access_token", appToken)])
            let code = try #require(first.json["code"]?.stringValue)
            server.clock.advance(by: 421)
            let expired = try await Self.post(
                client, "/device/login_status", [("access_token", appToken), ("code", code)])
            #expect(expired.json["error"]?["error_subcode"]?.intValue == 1349152)

            let second = try await Self.post(client, "/device/login", [("access_token", appToken)])
            let code2 = try #require(second.json["code"]?.stringValue)
            let browser = Browser(client)
            let login = try await browser.get("/device")
            _ = try await browser.post(
                "/device/signin",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: login.text) ?? ""), ("dialog", ""),
                    ("email", "bob@example.com"), ("password", "bob-password"),
                ])
            let consent = try await browser.get("/device?user_code=\(second.json["user_code"]?.stringValue ?? "")")
            let cancelled = try await browser.post(
                "/device/consent",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: consent.text) ?? ""),
                    ("dialog", Browser.hiddenValue("dialog", in: consent.text) ?? ""),
                    ("action", "cancel"),
                ])
            #expect(cancelled.text.contains("Login cancelled"))
            let declined = try await Self.post(
                client, "/device/login_status", [("access_token", appToken), ("code", code2)])
            #expect(declined.json["error"]?["code"]?.intValue == 31)
            #expect(declined.json["error"]?["error_subcode"]?.intValue == 1349173)
        }
    }

    @Test func badInputGetsDocumentedErrors() async throws {
        let server = try await TestServer.make()
        let appToken = clientToken(server)
        let userToken = try await server.token(for: server.alice)
        try await server.run { client in
            let scope = try await Self.post(
                client, "/device/login", [("access_token", appToken), ("scope", "email,bogus_perm")])
            #expect(
                scope.text
                    == #"{"error":{"message":"(#100) Invalid Scopes: bogus_perm","type":"OAuthException","code":100}}"#)
            let user = try await Self.post(client, "/device/login", [("access_token", userToken)])
            #expect(user.json["error"]?["code"]?.intValue == 100)
            let none = try await Self.post(client, "/device/login", [])
            #expect(none.json["error"]?["code"]?.intValue == 104)
            let unknown = try await Self.post(
                client, "/device/login_status", [("access_token", appToken), ("code", "nope")])
            #expect(
                unknown.text
                    == #"{"error":{"message":"(#100) Invalid device login code","type":"OAuthException","code":100}}"#)
            let missing = try await Self.post(client, "/device/login_status", [("access_token", appToken)])
            #expect(missing.json["error"]?["code"]?.intValue == 100)
            // A page for a code that does not exist, and a form without its CSRF token.
            let browser = Browser(client)
            let login = try await browser.get("/device")
            _ = try await browser.post(
                "/device/signin",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: login.text) ?? ""),
                    ("email", "alice@example.com"), ("password", "alice-password"),
                ])
            let wrong = try await browser.get("/device?user_code=ZZZZZZZZ")
            #expect(wrong.status == .badRequest)
            #expect(wrong.text.contains("not valid or has expired"))
            let forged = try await browser.post(
                "/device/consent", form: [("dialog", "user_code=ZZZZZZZZ"), ("action", "continue")])
            #expect(forged.status == .forbidden)
            let badPassword = try await Browser(client).post(
                "/device/signin", form: [("email", "alice@example.com"), ("password", "x")])
            #expect(badPassword.status == .forbidden)
        }
    }
}
