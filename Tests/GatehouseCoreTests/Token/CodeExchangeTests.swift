import Foundation
import GatehouseProtocol
import GatehouseCore
import Testing

@Suite struct CodeExchangeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func code(challenge: String? = nil, method: String? = nil, used: Bool = false, age: TimeInterval = 0)
        -> AuthCodeRecord
    {
        AuthCodeRecord(
            id: "c1", codeHash: "h", appID: "111", userID: "u", redirectURI: "https://a/cb", codeChallenge: challenge,
            codeChallengeMethod: method, createdAt: now.addingTimeInterval(-age),
            expiresAt: now.addingTimeInterval(600 - age),
            usedAt: used ? now : nil)
    }
    func presented(
        _ redirect: String = "https://a/cb", verifier: String? = nil, secret: Bool? = true, client: String = "111"
    ) -> CodeExchange.Presented {
        .init(clientID: client, redirectURI: redirect, codeVerifier: verifier, secretValid: secret)
    }

    @Test func issuesForAConfidentialClient() {
        #expect(CodeExchange.decide(code: code(), presented: presented(), now: now) == .issue(confidential: true))
    }
    @Test func unknownOrForeignCodeIsInvalidFormat() {
        #expect(CodeExchange.decide(code: nil, presented: presented(), now: now) == .reject(.invalidCodeFormat))
        #expect(
            CodeExchange.decide(code: code(), presented: presented(client: "222"), now: now)
                == .reject(.invalidCodeFormat))
    }
    @Test func badSecretComesFirst() {
        #expect(
            CodeExchange.decide(code: code(used: true), presented: presented(secret: false), now: now)
                == .reject(.invalidClientSecret))
    }
    @Test func usedCodeRevokesTheFamily() {
        #expect(
            CodeExchange.decide(code: code(used: true), presented: presented(), now: now)
                == .rejectAndRevokeFamily(.codeUsed))
    }
    @Test func expiresAfterTenMinutes() {
        #expect(
            CodeExchange.decide(code: code(age: 599), presented: presented(), now: now) == .issue(confidential: true))
        #expect(CodeExchange.decide(code: code(age: 600), presented: presented(), now: now) == .reject(.codeExpired))
    }
    @Test func redirectMustMatchExactly() {
        #expect(
            CodeExchange.decide(code: code(), presented: presented("https://a/cb/"), now: now)
                == .reject(.redirectURIMismatch))
        #expect(CodeExchange.decide(code: code(), presented: presented(""), now: now) == .reject(.redirectURIMismatch))
    }
    @Test func pkceS256() {
        let verifier = String(repeating: "a", count: 43)
        let challenge = PKCE.challenge(verifier: verifier, method: "S256")!
        let c = code(challenge: challenge, method: "S256")
        #expect(
            CodeExchange.decide(code: c, presented: presented(verifier: verifier, secret: nil), now: now)
                == .issue(confidential: false))
        #expect(
            CodeExchange.decide(
                code: c, presented: presented(verifier: String(repeating: "b", count: 43), secret: nil), now: now)
                == .reject(.invalidCodeVerifier))
        #expect(
            CodeExchange.decide(code: c, presented: presented(verifier: nil, secret: true), now: now)
                == .reject(.invalidCodeVerifier))
    }
    @Test func pkcePlain() {
        let verifier = String(repeating: "x", count: 50)
        #expect(
            CodeExchange.decide(
                code: code(challenge: verifier, method: "plain"), presented: presented(verifier: verifier, secret: nil),
                now: now) == .issue(confidential: false))
    }
    @Test func verifierWithoutChallengeIsADowngrade() {
        #expect(
            CodeExchange.decide(
                code: code(), presented: presented(verifier: String(repeating: "a", count: 43)), now: now)
                == .reject(.unexpectedCodeVerifier))
    }
    @Test func noSecretAndNoPKCEIsRefused() {
        #expect(
            CodeExchange.decide(code: code(), presented: presented(secret: nil), now: now)
                == .reject(.invalidClientSecret))
    }
}
