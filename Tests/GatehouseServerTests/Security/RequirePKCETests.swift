import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 12: an app's "Require PKCE" setting. With it on, a login dialog without a `code_challenge`
/// is refused before anyone logs in, and a code or nonce issued without one is not redeemed, even with the secret.
@Suite struct RequirePKCETests {
    static let verifier = String(repeating: "v", count: 64)
    static var challenge: String { PKCE.challenge(verifier: verifier, method: "S256")! }

    func requirePKCE(_ server: TestServer, _ on: Bool = true) async throws {
        var app = server.app
        app.requirePKCE = on
        try await server.services.storage.apps.update(app)
    }

    @Test func theSettingIsOffForNewAppsAndStoredWhenTurnedOn() async throws {
        let server = try await TestServer.make()
        #expect(server.app.requirePKCE == false)
        let created = try await server.services.accounts.createApp(
            name: "Public", redirectURIs: [TestServer.redirectURI], requirePKCE: true)
        #expect(try await server.services.storage.apps.find(id: created.id)?.requirePKCE == true)
        try await requirePKCE(server)
        #expect(try await server.services.storage.apps.find(id: server.app.id)?.requirePKCE == true)
        try await requirePKCE(server, false)
        #expect(try await server.services.storage.apps.find(id: server.app.id)?.requirePKCE == false)
        try await server.close()
    }

    @Test func aDialogWithoutAChallengeIsRefusedWithAPageNotARedirect() async throws {
        let server = try await TestServer.make()
        try await requirePKCE(server)
        try await server.run { client in
            for responseType in [
                "code", "token", "token_or_nonce", "id_token,token_or_nonce,signed_request,graph_domain",
            ] {
                let refused = try await client.execute(
                    uri: "/dialog/oauth?"
                        + DialogFlowTests.query(server, [("response_type", responseType), ("state", "s1")]),
                    method: .get)
                #expect(refused.status == .badRequest, "\(responseType)")
                #expect(refused.headers[.location] == nil)
                #expect(refused.text.contains("This app requires PKCE"))
                #expect(refused.text.contains("gatehouse apps update \(server.app.id) --require-pkce false"))
            }
            // With a challenge the same dialog shows the login page.
            let allowed = try await client.execute(
                uri: "/dialog/oauth?"
                    + DialogFlowTests.query(
                        server, [("code_challenge", Self.challenge), ("code_challenge_method", "S256")]),
                method: .get)
            #expect(allowed.status == .ok)
            // Limited Login's id_token carries no credential to redeem: its nonce binds it, so it still opens.
            let limited = try await client.execute(
                uri: "/dialog/oauth?"
                    + DialogFlowTests.query(
                        server, [("response_type", "id_token"), ("scope", "openid"), ("nonce", "n-1")]),
                method: .get)
            #expect(limited.status == .ok)
        }
    }

    @Test func aCodeWithItsVerifierIsRedeemedWithoutTheSecret() async throws {
        let server = try await TestServer.make()
        try await requirePKCE(server)
        try await server.run { client in
            let code = try await TokenEndpointTests.code(
                server, client, extra: [("code_challenge", Self.challenge), ("code_challenge_method", "S256")])
            let token = try await TokenEndpointTests.exchange(
                server, client, code: code, secret: "", extra: [("code_verifier", Self.verifier)])
            #expect(token.status == .ok)
            #expect(token.json["token_type"]?.stringValue == "bearer")
            #expect(token.json["expires_in"]?.intValue == 7200)
        }
    }

    @Test func aCodeIssuedBeforeTheSettingWasTurnedOnIsNotRedeemedEvenWithTheSecret() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await TokenEndpointTests.code(server, client)
            try await requirePKCE(server)
            let refused = try await TokenEndpointTests.exchange(server, client, code: code)
            TokenEndpointTests.expectError(
                refused, code: 100, message: "This app requires PKCE: the login dialog must be sent a code_challenge.",
                challengeKind: "invalid_request")
            // Turned off again, the same (unused) code redeems with the secret as before.
            try await requirePKCE(server, false)
            let redeemed = try await TokenEndpointTests.exchange(server, client, code: code)
            #expect(redeemed.status == .ok)
        }
    }

    @Test func theDecisionRefusesAChallengeFreeCodeOnlyWhenRequired() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let code = AuthCodeRecord(
            id: "c1", codeHash: "h", appID: "111", userID: "u", redirectURI: "https://a/cb", createdAt: now,
            expiresAt: now.addingTimeInterval(600))
        func presented(requirePKCE: Bool) -> CodeExchange.Presented {
            .init(
                clientID: "111", redirectURI: "https://a/cb", codeVerifier: nil, secretValid: true,
                requirePKCE: requirePKCE)
        }
        #expect(
            CodeExchange.decide(code: code, presented: presented(requirePKCE: false), now: now)
                == .issue(confidential: true))
        #expect(
            CodeExchange.decide(code: code, presented: presented(requirePKCE: true), now: now)
                == .reject(.codeChallengeRequired))
        // A wrong secret is still reported first, and a replay still revokes the family.
        var wrongSecret = presented(requirePKCE: true)
        wrongSecret.secretValid = false
        #expect(CodeExchange.decide(code: code, presented: wrongSecret, now: now) == .reject(.invalidClientSecret))
        var used = code
        used.usedAt = now
        #expect(
            CodeExchange.decide(code: used, presented: presented(requirePKCE: true), now: now)
                == .rejectAndRevokeFamily(.codeUsed))
    }
}
