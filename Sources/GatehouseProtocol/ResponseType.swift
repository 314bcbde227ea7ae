import Foundation

/// The dialog's `response_type`, a set of tokens saying what the redirect should carry.
///
/// Web clients send space-separated OAuth values (`code token`), the mobile SDKs comma lists
/// (`id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce`), so both separators
/// are accepted. Tokens are case-sensitive, as in OAuth; unrecognised ones are kept in `unknown`
/// so the server can decide whether to ignore or reject them.
package struct ResponseType: Sendable, Equatable {
    /// Return an authorization code.
    package var code: Bool
    /// Return an access token (implicit style, in the fragment).
    package var token: Bool
    /// Return an OIDC id_token.
    package var idToken: Bool
    /// iOS: return an access token, or a nonce to exchange for one (`fb_exchange_nonce`).
    package var tokenOrNonce: Bool
    /// Also return `signed_request`, whose payload carries `user_id`.
    package var signedRequest: Bool
    /// Also return `graph_domain` (`facebook` for classic tokens).
    package var graphDomain: Bool
    /// Also return `granted_scopes` and `denied_scopes`.
    package var grantedScopes: Bool
    /// iOS ≥ 17: also return `user_token_nonce`.
    package var userTokenNonce: Bool
    /// Tokens this server does not recognise, in request order.
    package var unknown: [String]

    /// Creates a response type; every flag defaults to off.
    package init(
        code: Bool = false, token: Bool = false, idToken: Bool = false, tokenOrNonce: Bool = false,
        signedRequest: Bool = false, graphDomain: Bool = false, grantedScopes: Bool = false,
        userTokenNonce: Bool = false, unknown: [String] = []
    ) {
        self.code = code
        self.token = token
        self.idToken = idToken
        self.tokenOrNonce = tokenOrNonce
        self.signedRequest = signedRequest
        self.graphDomain = graphDomain
        self.grantedScopes = grantedScopes
        self.userTokenNonce = userTokenNonce
        self.unknown = unknown
    }

    /// Parses the raw parameter; a missing or blank value means `code`, Facebook's default
    /// (social-core sends no `response_type`).
    package static func parse(_ raw: String?) -> ResponseType {
        let tokens = (raw ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        guard !tokens.isEmpty else { return ResponseType(code: true) }
        var result = ResponseType()
        for token in tokens {
            switch token {
            case "code": result.code = true
            case "token": result.token = true
            case "id_token": result.idToken = true
            case "token_or_nonce": result.tokenOrNonce = true
            case "signed_request": result.signedRequest = true
            case "graph_domain": result.graphDomain = true
            case "granted_scopes": result.grantedScopes = true
            case "user_token_nonce": result.userTokenNonce = true
            default: if !result.unknown.contains(token) { result.unknown.append(token) }
            }
        }
        return result
    }

    /// Whether results go in the fragment rather than the query: anything carrying a token
    /// must not reach the redirect target's server logs, so token, token_or_nonce and id_token
    /// switch to the fragment, and everything else rides along with them.
    package var usesFragment: Bool {
        token || tokenOrNonce || idToken
    }

    /// The recognised tokens in a fixed order, comma-joined as the mobile SDKs write them; for
    /// logs and for rebuilding dialog URLs.
    package var rawValue: String {
        let flags: [(Bool, String)] = [
            (code, "code"), (token, "token"), (idToken, "id_token"), (tokenOrNonce, "token_or_nonce"),
            (signedRequest, "signed_request"), (graphDomain, "graph_domain"),
            (grantedScopes, "granted_scopes"), (userTokenNonce, "user_token_nonce"),
        ]
        return (flags.filter(\.0).map(\.1) + unknown).joined(separator: ",")
    }
}
