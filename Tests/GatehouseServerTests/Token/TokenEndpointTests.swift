import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct TokenEndpointTests {
    /// Logs Alice in through the dialog and returns the code.
    static func code(
        _ server: TestServer, _ client: any TestClientProtocol, extra: [(String, String)] = [],
        redirect: String = TestServer.redirectURI
    ) async throws -> String {
        let browser = Browser(client)
        let location = try await browser.logIn(
            query: FormEncoding.encode(
                [("client_id", server.app.id), ("redirect_uri", redirect), ("scope", "email")] + extra),
            email: "alice@example.com", password: "alice-password")
        return try #require(redirectParameters(location)["code"])
    }

    static func exchange(
        _ server: TestServer, _ client: any TestClientProtocol, code: String, secret: String? = nil,
        redirect: String = TestServer.redirectURI, method: HTTPRequest.Method = .get, extra: [(String, String)] = []
    ) async throws -> TestResponse {
        var params = [("client_id", server.app.id), ("redirect_uri", redirect), ("code", code)] + extra
        if let secret = secret ?? Optional(server.app.secret), !secret.isEmpty {
            params.append(("client_secret", secret))
        }
        if method == .get {
            return try await client.execute(
                uri: "/v24.0/oauth/access_token?" + FormEncoding.encode(params), method: .get)
        }
        return try await client.execute(
            uri: "/oauth/access_token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: FormEncoding.encode(params)))
    }

    static func expectError(
        _ response: TestResponse, code: Int, subcode: Int? = nil, message: String,
        status: HTTPResponse.Status = .badRequest, challengeKind: String? = "invalid_code"
    ) {
        #expect(response.status == status)
        #expect(response.headers[.contentType] == "application/json; charset=UTF-8")
        let error = response.json["error"]
        #expect(error?["message"]?.stringValue == message)
        #expect(error?["type"]?.stringValue == "OAuthException")
        #expect(error?["code"]?.intValue == Int64(code))
        #expect(error?["error_subcode"]?.intValue == subcode.map(Int64.init))
        if let challengeKind {
            #expect(
                response.headers[.wwwAuthenticate] == "OAuth \"Facebook Platform\" \"\(challengeKind)\" \"\(message)\"")
        }
    }

    @Test func codeExchangeGivesALongLivedBearerToken() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await Self.code(server, client)
            let response = try await Self.exchange(server, client, code: code)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(response.headers[HTTPField.Name("facebook-api-version")!] == "v24.0")
            #expect(response.headers[.cacheControl]?.contains("no-store") == true)
            let body = response.json
            #expect(body.objectValue?.pairs.map(\.0) == ["access_token", "token_type", "expires_in"])
            #expect(body["token_type"]?.stringValue == "bearer")
            #expect(body["expires_in"]?.intValue == 5_184_000)
            let token = try #require(body["access_token"]?.stringValue)
            #expect(token.hasPrefix("EAAG") && token.count >= 36)
            let stored = try await server.services.storage.tokens.find(tokenHash: SecretHash.sha256Hex(token))
            #expect(stored != nil)
            let me = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(me.json["name"]?.stringValue == "Alice Anders")
        }
    }

    @Test func aReplayedCodeIsRefusedAndKillsItsTokens() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await Self.code(server, client)
            let first = try await Self.exchange(server, client, code: code, method: .post)
            let token = try #require(first.json["access_token"]?.stringValue)
            let second = try await Self.exchange(server, client, code: code)
            Self.expectError(second, code: 100, subcode: 36009, message: "This authorization code has been used.")
            let me = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(me.status == .badRequest)
            #expect(me.json["error"]?["code"]?.intValue == 190)
            #expect(me.json["error"]?["error_subcode"]?.intValue == 467)
        }
    }

    @Test func expiredCodesAndMismatchedRedirectsAreRefused() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await Self.code(server, client)
            let mismatch = try await Self.exchange(server, client, code: code, redirect: TestServer.redirectURI + "/")
            Self.expectError(
                mismatch, code: 100, subcode: 36008,
                message:
                    "Error validating verification code. Please make sure your redirect_uri is identical to the "
                    + "one you used in the OAuth dialog request"
            )
            server.clock.advance(by: 601)
            let expired = try await Self.exchange(server, client, code: code)
            Self.expectError(expired, code: 100, subcode: 36007, message: "This authorization code has expired.")
            let garbage = try await Self.exchange(server, client, code: "not-a-code")
            Self.expectError(garbage, code: 100, message: "Invalid verification code format.")
        }
    }

    @Test func clientErrors() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await Self.code(server, client)
            let badSecret = try await Self.exchange(server, client, code: code, secret: "wrong")
            Self.expectError(
                badSecret, code: 1, message: "Error validating client secret.", challengeKind: "invalid_client")
            let unknown = try await client.execute(
                uri: "/oauth/access_token?client_id=42&client_secret=x&code=\(code)&redirect_uri=x", method: .get)
            Self.expectError(
                unknown, code: 101, message: "Error validating application. Invalid application ID.",
                challengeKind: "invalid_client")
            let missing = try await client.execute(uri: "/oauth/access_token?code=\(code)", method: .get)
            Self.expectError(
                missing, code: 101, message: "Missing client_id parameter.", challengeKind: "invalid_client")
            // The code survived those failures.
            let ok = try await Self.exchange(server, client, code: code)
            #expect(ok.status == .ok)
        }
    }

    @Test func secretInHTTPBasicAuth() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await Self.code(server, client)
            let basic = Data("\(server.app.id):\(server.app.secret)".utf8).base64EncodedString()
            let response = try await client.execute(
                uri: "/oauth/access_token", method: .post,
                headers: [.authorization: "Basic \(basic)", .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(
                    string: FormEncoding.encode([
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestServer.redirectURI),
                    ])))
            #expect(response.status == .ok)
            #expect(response.json["access_token"] != nil)
        }
    }

    @Test func pkceIsVerifiedWhenAChallengeWasSent() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let verifier = String(repeating: "k", count: 64)
            let challenge = PKCE.challenge(verifier: verifier, method: "S256")!
            let code = try await Self.code(
                server, client, extra: [("code_challenge", challenge), ("code_challenge_method", "S256")])
            let wrong = try await Self.exchange(
                server, client, code: code, secret: "", extra: [("code_verifier", String(repeating: "z", count: 64))])
            Self.expectError(wrong, code: 100, message: "Invalid code verifier.", challengeKind: "invalid_request")
            let right = try await Self.exchange(
                server, client, code: code, secret: "", extra: [("code_verifier", verifier)])
            #expect(right.status == .ok)
            #expect(right.json["expires_in"]?.intValue == 7200)

            let plainCode = try await Self.code(server, client)
            let downgrade = try await Self.exchange(
                server, client, code: plainCode, extra: [("code_verifier", verifier)])
            Self.expectError(
                downgrade, code: 100,
                message: "A code_verifier was sent but the login dialog was not sent a code_challenge.",
                challengeKind: "invalid_request")
        }
    }

    @Test func longLivedExchangeAppTokensAndMobileRefresh() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let short = try await server.token(for: server.alice, lifetime: Lifetimes.shortLivedToken)
            let app = server.app
            let long = try await client.execute(
                uri:
                    "/oauth/access_token?grant_type=fb_exchange_token&client_id=\(app.id)&client_secret=\(app.secret)&fb_exchange_token=\(short)",
                method: .get)
            #expect(long.status == .ok)
            #expect(long.json["expires_in"]?.intValue == 5_184_000)
            #expect(long.json["access_token"]?.stringValue != short)

            let appToken = try await client.execute(
                uri:
                    "/oauth/access_token?grant_type=client_credentials&client_id=\(app.id)&client_secret=\(app.secret)",
                method: .get)
            let text = try #require(appToken.json["access_token"]?.stringValue)
            #expect(text.hasPrefix("\(app.id)|"))
            #expect(appToken.json.objectValue?.pairs.map(\.0) == ["access_token", "token_type"])
            let debug = try await client.execute(
                uri:
                    "/debug_token?input_token=\(short)&access_token=\(text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                method: .get)
            #expect(debug.json["data"]?["is_valid"]?.boolValue == true)

            server.clock.advance(by: 3600)
            let refreshed = try await client.execute(
                uri:
                    "/v27.0/oauth/access_token?grant_type=fb_extend_sso_token&client_id=\(app.id)&fields=&access_token=\(short)",
                method: .get)
            #expect(refreshed.status == .ok)
            #expect(refreshed.json["access_token"]?.stringValue == short)
            #expect(refreshed.json["expires_at"]?.intValue == Int64(1_800_000_000 + 3600 + 5_184_000))
            #expect(refreshed.json["data_access_expiration_time"]?.intValue == Int64(1_800_000_000 + 90 * 86400))

            server.clock.advance(by: 5_184_001)
            let expired = try await client.execute(
                uri:
                    "/oauth/access_token?grant_type=fb_exchange_token&client_id=\(app.id)&client_secret=\(app.secret)&fb_exchange_token=\(short)",
                method: .get)
            #expect(expired.json["error"]?["error_subcode"]?.intValue == 463)
        }
    }

    @Test func accessTokenInfoReportsTheAuthNonce() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await Self.code(
                server, client, extra: [("auth_type", "reauthenticate"), ("auth_nonce", "nonce-42")])
            let token = try await Self.exchange(server, client, code: code).json["access_token"]!.stringValue!
            let info = try await client.execute(
                uri: "/oauth/access_token_info?client_id=\(server.app.id)&access_token=\(token)", method: .get)
            #expect(info.json["auth_nonce"]?.stringValue == "nonce-42")
            #expect(info.json["token_type"]?.stringValue == "bearer")
            #expect(info.json["expires_in"]?.intValue == 5_184_000)
        }
    }
}
