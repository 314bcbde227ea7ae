import Foundation
import GatehouseProtocol

/// The `auth_type` values the dialog understands.
package enum AuthType: String, Sendable {
    case rerequest, reauthenticate, reauthorize
}

/// A validated `GET /dialog/oauth` request.
///
/// Its raw query travels through the login and consent forms as a hidden field and is validated
/// again on every step, so nothing the browser sends later is trusted more than the first request.
package struct DialogRequest: Sendable, Equatable {
    package var clientID: String
    package var redirectURI: String
    package var state: String?
    /// Requested permissions, without `openid` (kept in `openID`), `public_profile` first.
    package var permissions: [String]
    package var openID: Bool
    package var responseType: ResponseType
    package var authType: AuthType?
    package var authNonce: String?
    package var codeChallenge: String?
    package var codeChallengeMethod: String?
    package var nonce: String?
    package var returnScopes: Bool
    /// A Limited Login: an id_token and never an access token (`tp=ios_14_do_not_track`, or `id_token` alone).
    package var isLimited: Bool
    /// Requested permissions outside the Limited Login list; dropped from consent and reported declined.
    package var droppedByLimitedLogin: [String]
    /// The native app-switch flow (`ios_fast_app_switch=true`) with `token_or_nonce`: answer with a one-time
    /// `nonce` the SDK redeems with `grant_type=fb_exchange_nonce`, instead of a token in the URL.
    package var answersWithNonce: Bool
    /// `default_audience`: preselected on the publish step; `friends` when absent or unknown, as Facebook's SDK defaults.
    package var defaultAudience: Audience = .friends
    /// The query string this request was parsed from, to be carried through the forms.
    package var rawQuery: String

    /// Why a dialog request cannot proceed. These render an HTML error page and never redirect.
    package enum Problem: Error, Equatable, Sendable {
        case missingClientID
        case unknownApp(String)
        case missingRedirectURI
        case redirectURINotAllowed(appID: String, uri: String)
        case invalidScopes([String])
        case invalidCodeChallenge
        /// The app requires PKCE and the dialog was sent no `code_challenge`.
        case codeChallengeRequired(appID: String)
        case malformedQuery
        /// `response_type=token` to the app's URL scheme, which the app did not register (opt in to) explicitly.
        case appSchemeTokenNotOptedIn(appID: String, uri: String)
        /// A page using `/sdk.js` whose origin is not among the app's "Allowed Domains for the JavaScript SDK".
        case javaScriptSDKDomainNotAllowed(appID: String, origin: String)
    }

    /// Parses and validates the dialog's query parameters against the app.
    package static func parse(
        query: String, findApp: (String) async throws -> AppRecord?
    ) async throws -> Result<(DialogRequest, AppRecord), Problem> {
        guard let pairs = FormEncoding.decode(query) else { return .failure(.malformedQuery) }
        var params: [String: String] = [:]
        for (k, v) in pairs where params[k] == nil { params[k] = v }
        guard let clientID = params[DialogParameter.clientID], !clientID.isEmpty else {
            return .failure(.missingClientID)
        }
        guard clientID.count <= 32, clientID.allSatisfy(\.isNumber), let app = try await findApp(clientID) else {
            return .failure(.unknownApp(String(clientID.prefix(32))))
        }
        guard let redirect = params[DialogParameter.redirectURI], !redirect.isEmpty else {
            return .failure(.missingRedirectURI)
        }
        if let origin = JavaScriptSDKArbiter.pageOrigin(redirect), !JavaScriptSDKDomains.allows(origin, for: app) {
            return .failure(.javaScriptSDKDomainNotAllowed(appID: app.id, origin: String(origin.prefix(512))))
        }
        guard RedirectURIPolicy.isAllowed(redirect, for: app) else {
            return .failure(.redirectURINotAllowed(appID: app.id, uri: String(redirect.prefix(512))))
        }
        let scope = Permission.parseScope(params[DialogParameter.scope] ?? "")
        let unknown = scope.filter { !Permission.isKnown($0) }
        // Named back to the developer, but only the first few: the list is the client's, up to the body limit.
        if !unknown.isEmpty { return .failure(.invalidScopes(unknown.prefix(10).map { GraphError.echo($0) })) }
        var permissions = [Permission.publicProfile]
        for p in scope where p != "openid" && !permissions.contains(p) { permissions.append(p) }
        let responseType = ResponseType.parse(params[DialogParameter.responseType])
        // A plain token in an `fb{appid}://` URL is readable by any app that claims the scheme. The SDK's own flow
        // uses `token_or_nonce` (nonce bound to PKCE) or a code; a plain token needs the URI registered exactly.
        if responseType.token, RedirectURIPolicy.isAppScheme(redirect, appID: app.id),
            !app.redirectURIs.contains(redirect)
        {
            return .failure(.appSchemeTokenNotOptedIn(appID: app.id, uri: String(redirect.prefix(512))))
        }
        let isLimited =
            params[DialogParameter.trackingPreference] == DialogParameter.limitedLoginTrackingValue
            || (responseType.idToken && !responseType.token && !responseType.tokenOrNonce && !responseType.code)
        var dropped: [String] = []
        if isLimited {
            dropped = permissions.filter { !(Permission.info($0)?.allowedInLimitedLogin ?? false) }
            permissions.removeAll { dropped.contains($0) }
        }

        let challenge = params[DialogParameter.codeChallenge].flatMap { $0.isEmpty ? nil : $0 }
        var method = params[DialogParameter.codeChallengeMethod].flatMap { $0.isEmpty ? nil : $0 }
        if challenge != nil {
            // RFC 7636 §4.3 lets a missing method mean `plain`; that would let anyone who sees the challenge (it
            // travels in the front channel) redeem the code. Only an explicit `plain` is plain (issue 12, finding 12).
            method = method ?? "S256"
            guard method == "S256" || method == "plain", let c = challenge, (43...128).contains(c.count) else {
                return .failure(.invalidCodeChallenge)
            }
        } else {
            method = nil
            // "Require PKCE": whatever the dialog hands back (a code, a nonce or a token) must be bound to a
            // challenge. An id_token-only request (Limited Login) returns no credential to redeem; its nonce binds it.
            if app.requirePKCE, responseType.code || responseType.token || responseType.tokenOrNonce {
                return .failure(.codeChallengeRequired(appID: app.id))
            }
        }
        let request = DialogRequest(
            clientID: clientID, redirectURI: redirect, state: params[DialogParameter.state], permissions: permissions,
            openID: scope.contains("openid") || responseType.idToken, responseType: responseType,
            authType: params[DialogParameter.authType].flatMap(AuthType.init(rawValue:)),
            authNonce: params[DialogParameter.authNonce],
            codeChallenge: challenge, codeChallengeMethod: method, nonce: params[DialogParameter.nonce],
            returnScopes: params[DialogParameter.returnScopes] == "true" || params[DialogParameter.returnScopes] == "1",
            isLimited: isLimited,
            droppedByLimitedLogin: dropped,
            answersWithNonce: params[DialogParameter.fastAppSwitch] == "true" && responseType.tokenOrNonce
                && !responseType.token,
            defaultAudience: params[DialogParameter.defaultAudience].flatMap(Audience.init(wireName:)) ?? .friends,
            rawQuery: query)
        return .success((request, app))
    }

    package init(
        clientID: String, redirectURI: String, state: String? = nil, permissions: [String], openID: Bool,
        responseType: ResponseType, authType: AuthType? = nil, authNonce: String? = nil, codeChallenge: String? = nil,
        codeChallengeMethod: String? = nil, nonce: String? = nil, returnScopes: Bool, isLimited: Bool,
        droppedByLimitedLogin: [String], answersWithNonce: Bool, defaultAudience: Audience = .friends, rawQuery: String
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.state = state
        self.permissions = permissions
        self.openID = openID
        self.responseType = responseType
        self.authType = authType
        self.authNonce = authNonce
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.nonce = nonce
        self.returnScopes = returnScopes
        self.isLimited = isLimited
        self.droppedByLimitedLogin = droppedByLimitedLogin
        self.answersWithNonce = answersWithNonce
        self.defaultAudience = defaultAudience
        self.rawQuery = rawQuery
    }
}

extension DialogRequest.Problem {
    /// A plain statement of what went wrong, for the error page.
    package var headline: String {
        switch self {
        case .missingClientID: "The login link is missing client_id"
        case .unknownApp: "This app does not exist"
        case .missingRedirectURI: "The login link is missing redirect_uri"
        case .redirectURINotAllowed: "This redirect URI is not allowed"
        case .invalidScopes: "The app asked for permissions that do not exist"
        case .invalidCodeChallenge: "The PKCE code challenge is invalid"
        case .codeChallengeRequired: "This app requires PKCE"
        case .malformedQuery: "The login link is malformed"
        case .appSchemeTokenNotOptedIn: "This app does not accept tokens at its URL scheme"
        case .javaScriptSDKDomainNotAllowed:
            "Can't load URL: the domain of this page isn't among the app's JavaScript SDK domains"
        }
    }

    /// What the app's developer must change.
    package var developerHint: String {
        switch self {
        case .missingClientID: "Add client_id=<your app id> to the dialog URL."
        case .unknownApp(let id): "No app has the id \(id). List apps with `gatehouse apps list`."
        case .missingRedirectURI: "Add redirect_uri=<a registered redirect URI> to the dialog URL."
        case .redirectURINotAllowed(let appID, let uri):
            "redirect_uri \(uri) is not registered for app \(appID): register it with `gatehouse apps update "
                + "\(appID) --add-redirect-uri \(uri)`. It must match a registered URI exactly (only the port of a loopback URI may differ)."
        case .invalidScopes(let names): "Invalid Scopes: \(names.joined(separator: ", ")). Check the permission names."
        case .invalidCodeChallenge: "code_challenge must be 43-128 characters and code_challenge_method S256 or plain."
        case .codeChallengeRequired(let appID):
            "App \(appID) has \"Require PKCE\" on: send code_challenge (BASE64URL(SHA256(code_verifier))) and "
                + "code_challenge_method=S256, then code_verifier to the token endpoint. Turn it off with "
                + "`gatehouse apps update \(appID) --require-pkce false`."
        case .malformedQuery: "The query string could not be decoded (bad percent-encoding or invalid UTF-8)."
        case .appSchemeTokenNotOptedIn(let appID, let uri):
            "response_type=token to \(uri) puts the token where any app claiming the scheme can read it. Use "
                + "response_type=token_or_nonce or code (with PKCE), or opt in by registering the URI exactly: "
                + "`gatehouse apps update \(appID) --add-redirect-uri \(uri)`."
        case .javaScriptSDKDomainNotAllowed(let appID, let origin):
            "The page \(origin) uses the JavaScript SDK with app \(appID), which does not list it under \"Allowed "
                + "Domains for the JavaScript SDK\": add it with `gatehouse apps update \(appID) --add-js-sdk-domain \(origin)`."
        }
    }
}
