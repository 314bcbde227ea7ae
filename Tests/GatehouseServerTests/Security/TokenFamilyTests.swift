import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, findings 11 and 12: a replayed code kills every token that descends from it, the mobile refresh
/// authenticates its client and never stretches a web fragment token to 60 days, and PKCE cannot be downgraded
/// (a missing method is S256; the app-switch nonce is bound to the challenge).
@Suite struct TokenFamilyTests {
    @Test func replayingACodeRevokesTokensExchangedFromItsToken() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await TokenEndpointTests.code(server, client)
            let first = try #require(
                try await TokenEndpointTests.exchange(server, client, code: code).json["access_token"]?.stringValue)
            let app = server.app
            let exchanged = try await client.execute(
                uri:
                    "/oauth/access_token?grant_type=fb_exchange_token&client_id=\(app.id)&client_secret=\(app.secret)&fb_exchange_token=\(first)",
                method: .get)
            let derived = try #require(exchanged.json["access_token"]?.stringValue)
            #expect(try await client.execute(uri: "/me?access_token=\(derived)", method: .get).status == .ok)
            let replay = try await TokenEndpointTests.exchange(server, client, code: code)
            #expect(replay.status == .badRequest)
            for token in [first, derived] {
                let me = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
                #expect(me.status == .badRequest)
                #expect(me.json["error"]?["code"]?.intValue == 190)
            }
        }
    }

    @Test func extendSSOTokenRefusesARequestThatDoesNotNameItsApp() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, lifetime: Lifetimes.shortLivedToken)
        try await server.run { client in
            let r = try await client.execute(
                uri: "/oauth/access_token?grant_type=fb_extend_sso_token&fields=&access_token=\(token)", method: .get)
            #expect(r.status == .badRequest)
            #expect(r.json["error"]?["code"]?.intValue == 101)
            #expect(r.json["error"]?["message"]?.stringValue == "Missing client_id parameter.")
            let stored = try await server.services.storage.tokens.find(tokenHash: SecretHash.sha256Hex(token))
            #expect(stored?.expiresAt == server.clock.now().addingTimeInterval(Lifetimes.shortLivedToken))
        }
    }

    @Test func extendSSOTokenDoesNotStretchAWebFragmentTokenTo60Days() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let location = try await Browser(client).logIn(
                query: DialogFlowTests.query(server, [("response_type", "token")]), email: "alice@example.com",
                password: "alice-password")
            let token = try #require(redirectParameters(location)["access_token"])
            let issuedUntil = Int64(
                server.clock.now().addingTimeInterval(Lifetimes.shortLivedToken).timeIntervalSince1970)
            server.clock.advance(by: 600)
            let r = try await client.execute(
                uri:
                    "/oauth/access_token?grant_type=fb_extend_sso_token&client_id=\(server.app.id)&fields=&access_token=\(token)",
                method: .get)
            #expect(r.status == .ok)
            #expect(r.json["access_token"]?.stringValue == token)
            #expect(r.json["expires_at"]?.intValue == issuedUntil)
            #expect(r.json["expires_in"]?.intValue == Int64(Lifetimes.shortLivedToken) - 600)
        }
    }

    @Test func aChallengeWithoutAMethodIsS256NotPlain() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let verifier = String(repeating: "q", count: 64)
            let challenge = try #require(PKCE.challenge(verifier: verifier, method: "S256"))
            let code = try await TokenEndpointTests.code(server, client, extra: [("code_challenge", challenge)])
            // Someone who saw the challenge cannot redeem it as if it were a plain verifier.
            let stolen = try await TokenEndpointTests.exchange(
                server, client, code: code, secret: "", extra: [("code_verifier", challenge)])
            #expect(stolen.json["error"]?["message"]?.stringValue == "Invalid code verifier.")
            let right = try await TokenEndpointTests.exchange(
                server, client, code: code, secret: "", extra: [("code_verifier", verifier)])
            #expect(right.status == .ok)
        }
    }

    @Test func theAppSwitchNonceCannotBeRedeemedWithoutTheVerifier() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let verifier = String(repeating: "n", count: 64)
            let challenge = try #require(PKCE.challenge(verifier: verifier, method: "S256"))
            let location = try await Browser(client).logIn(
                query: FormEncoding.encode([
                    ("client_id", server.app.id), ("redirect_uri", "fb\(server.app.id)://authorize/"),
                    ("response_type", "token_or_nonce,signed_request"), ("ios_fast_app_switch", "true"),
                    ("code_challenge", challenge), ("code_challenge_method", "S256"),
                ]), email: "alice@example.com", password: "alice-password")
            let nonce = try #require(redirectParameters(location)["nonce"])
            let exchange =
                "/oauth/access_token?grant_type=fb_exchange_nonce&fb_exchange_nonce=\(nonce)&client_id=\(server.app.id)&fields="
            let bare = try await client.execute(uri: exchange, method: .get)
            #expect(bare.status == .badRequest)
            #expect(bare.json["error"]?["message"]?.stringValue == "Invalid code verifier.")
            let proven = try await client.execute(uri: exchange + "&code_verifier=\(verifier)", method: .get)
            #expect(proven.status == .ok)
            #expect(proven.json["access_token"]?.stringValue?.hasPrefix("EAAG") == true)
        }
    }

    @Test func aPlainTokenToTheAppSchemeIsRefusedUntilTheAppOptsIn() async throws {
        let server = try await TestServer.make()
        let scheme = "fb\(server.app.id)://authorize/"
        let query = "/dialog/oauth?" + DialogFlowTests.query(server, [("response_type", "token")], redirect: scheme)
        try await server.run { client in
            let refused = try await client.execute(uri: query, method: .get)
            #expect(refused.status == .badRequest)
            #expect(refused.headers[.location] == nil)
            #expect(refused.text.contains("This app does not accept tokens at its URL scheme"))
            // The SDK's own flow (token_or_nonce) is unaffected.
            let sdk = try await client.execute(
                uri: "/dialog/oauth?"
                    + DialogFlowTests.query(server, [("response_type", "token_or_nonce")], redirect: scheme),
                method: .get)
            #expect(sdk.status == .ok)
            // Registering the URI exactly is the opt-in.
            var app = server.app
            app.redirectURIs.append(scheme)
            try await server.services.storage.apps.update(app)
            #expect(try await client.execute(uri: query, method: .get).status == .ok)
        }
    }
}
