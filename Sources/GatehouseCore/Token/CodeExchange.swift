import Foundation
import GatehouseProtocol

/// The authorization-code → token step as a pure decision (RFC 6749 §4.1.3, RFC 7636, RFC 9700 §4.2.4).
///
/// The endpoint gathers the stored code and what the client sent; this decides. A replayed code
/// is answered with 36009 and revokes every token minted from it.
package enum CodeExchange {
    /// What the client presented.
    package struct Presented: Sendable, Equatable {
        package var clientID: String
        /// The `redirect_uri` sent to the token endpoint (`""` when absent).
        package var redirectURI: String
        package var codeVerifier: String?
        /// nil when no secret was sent; otherwise whether it matched.
        package var secretValid: Bool?
        /// The app's "Require PKCE": a code issued without a challenge is not redeemed, even with the secret.
        package var requirePKCE: Bool

        package init(
            clientID: String, redirectURI: String, codeVerifier: String?, secretValid: Bool?, requirePKCE: Bool = false
        ) {
            self.clientID = clientID
            self.redirectURI = redirectURI
            self.codeVerifier = codeVerifier
            self.secretValid = secretValid
            self.requirePKCE = requirePKCE
        }
    }

    package enum Action: Sendable, Equatable {
        /// Mint a token. `confidential` is true when the client proved its secret (long-lived token).
        case issue(confidential: Bool)
        case reject(GraphError)
        /// The code was already used: refuse, and revoke the tokens minted from it.
        case rejectAndRevokeFamily(GraphError)
    }

    package static func decide(code: AuthCodeRecord?, presented: Presented, now: Date) -> Action {
        if presented.secretValid == false { return .reject(.invalidClientSecret) }
        guard let code, code.appID == presented.clientID else { return .reject(.invalidCodeFormat) }
        if code.usedAt != nil { return .rejectAndRevokeFamily(.codeUsed) }
        if now >= code.expiresAt { return .reject(.codeExpired) }
        if presented.redirectURI != code.redirectURI { return .reject(.redirectURIMismatch) }
        if let challenge = code.codeChallenge {
            guard let verifier = presented.codeVerifier, PKCE.isValidVerifier(verifier),
                PKCE.verify(verifier: verifier, challenge: challenge, method: code.codeChallengeMethod ?? "S256")
            else { return .reject(.invalidCodeVerifier) }
            return .issue(confidential: presented.secretValid == true)
        }
        if presented.codeVerifier != nil { return .reject(.unexpectedCodeVerifier) }
        // Only a code issued before the app turned the setting on gets here: the dialog refuses such logins now.
        if presented.requirePKCE { return .reject(.codeChallengeRequired) }
        guard presented.secretValid == true else { return .reject(.invalidClientSecret) }
        return .issue(confidential: true)
    }
}
