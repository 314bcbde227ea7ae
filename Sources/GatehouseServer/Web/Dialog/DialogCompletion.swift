import GatehouseCore
import Foundation
import GatehouseProtocol

/// Performs the effects of a finished dialog: saves the grant, mints the code and/or token, and
/// builds the redirect exactly as Facebook shapes it.
struct DialogCompletion: Sendable {
    let services: GatehouseServices

    /// - Parameters:
    ///   - existing: the grant the decision was made from (nil: none yet); read once, by the caller.
    ///   - knownScopedID: the person's app-scoped id if the caller read it (nil: read or made here).
    func complete(
        request: DialogRequest, app: AppRecord, user: UserRecord, grant existing: GrantRecord?,
        scopedID knownScopedID: String?,
        decision: LoginAttempt.Decision
    ) async throws -> String {
        let storage = services.storage
        let now = services.clock.now()
        let grant = GrantRecord(
            appID: app.id, userID: user.id, granted: decision.granted, declined: decision.declined,
            createdAt: existing?.createdAt ?? now, updatedAt: now, lastLoginAt: now,
            defaultAudience: decision.defaultAudience)
        // Made on first use, outside the transaction below (whose body may write only through its own stores).
        let scopedID: String
        if let knownScopedID {
            scopedID = knownScopedID
        } else {
            scopedID = try await storage.users.scopedID(appID: app.id, userID: user.id)
        }
        let type = request.responseType
        var params: [(String, String)] = []

        if request.isLimited {
            try await storage.grants.save(grant)
            // Limited Login: an id_token, never an access token or a code.
            params.append(
                (
                    "id_token",
                    try await IDTokenIssuer(services: services).issue(
                        app: app, user: user, granted: decision.granted, nonce: request.nonce)
                ))
            if type.graphDomain { params.append(("graph_domain", "facebook")) }
            params.append(("granted_scopes", decision.granted.joined(separator: ",")))
            params.append(
                ("denied_scopes", (decision.deniedThisTime + request.droppedByLimitedLogin).joined(separator: ",")))
            if let state = request.state { params.append(("state", state)) }
            return DialogRedirect.url(redirectURI: request.redirectURI, parameters: params, inFragment: true)
        }

        var code: String?
        var codeRecord: AuthCodeRecord?
        // The JavaScript SDK's popup asks for `token,signed_request`: its signed_request carries a code of its own,
        // which the page's back end (the `fbsr_` cookie) redeems with `redirect_uri=""`, as Facebook's does.
        let javaScriptSDK = type.signedRequest && JavaScriptSDKArbiter.pageOrigin(request.redirectURI) != nil
        if type.code || javaScriptSDK {
            let text = "AQ" + services.random.alphanumeric(bits: 256)
            codeRecord = AuthCodeRecord(
                id: services.random.uuidString(), codeHash: SecretHash.sha256Hex(text), appID: app.id, userID: user.id,
                redirectURI: javaScriptSDK && !type.code ? "" : request.redirectURI,
                codeChallenge: request.codeChallenge,
                codeChallengeMethod: request.codeChallengeMethod, nonce: request.nonce,
                authType: request.authType?.rawValue, authNonce: request.authNonce,
                scopes: decision.granted + (request.openID ? ["openid"] : []),
                createdAt: now, expiresAt: now.addingTimeInterval(Lifetimes.authorizationCode))
            code = text
        }
        var nonceRecord: AuthCodeRecord?
        if request.answersWithNonce {
            let text = "NA" + services.random.alphanumeric(bits: 256)
            nonceRecord = AuthCodeRecord(
                id: services.random.uuidString(), codeHash: SecretHash.sha256Hex(text), appID: app.id, userID: user.id,
                // The code challenge rides along, so `fb_exchange_nonce` needs the verifier just as a code would.
                redirectURI: AuthCodeRecord.nonceExchangeMarker, codeChallenge: request.codeChallenge,
                codeChallengeMethod: request.codeChallengeMethod, nonce: request.nonce,
                authType: request.authType?.rawValue,
                authNonce: request.authNonce, scopes: decision.granted + (request.openID ? ["openid"] : []),
                createdAt: now, expiresAt: now.addingTimeInterval(Lifetimes.authorizationCode))
            params.append(("nonce", text))
        }
        let mintsToken = nonceRecord == nil && (type.token || type.tokenOrNonce)
        let tokens = services.tokens
        // The grant, the code or nonce and the token commit together: one fsync, and no code without its grant.
        // A grant with a code alone (the usual code flow) is one statement on PostgreSQL.
        let token: String?
        if let codeRecord, nonceRecord == nil, !mintsToken {
            try await storage.saveGrant(grant, storing: codeRecord)
            token = nil
        } else {
            token = try await storage.transaction { [codeRecord, nonceRecord] tx -> String? in
                try await tx.grants.save(grant)
                if let codeRecord { try await tx.codes.insert(codeRecord) }
                if let nonceRecord { try await tx.codes.insert(nonceRecord) }
                guard mintsToken else { return nil }
                return try await tokens.mintUserToken(
                    app: app, userID: user.id, lifetime: Lifetimes.shortLivedToken,
                    authType: request.authType?.rawValue,
                    // Tokens for the mobile SDKs' `fb{appid}://` scheme may be extended daily (`fb_extend_sso_token`);
                    // a web page's fragment token may not (issue 12, finding 11).
                    authNonce: request.authNonce,
                    origin: RedirectURIPolicy.isAppScheme(request.redirectURI, appID: app.id) ? "app_switch" : "dialog",
                    into: tx.tokens
                ).0
            }
        }
        if codeRecord != nil { services.metrics.tokenIssued("code") }
        if let token {
            params.append(("access_token", token))
            params.append(
                (
                    "data_access_expiration_time",
                    String(Int(GrantRecord.dataAccessExpiry(lastLoginAt: now).timeIntervalSince1970))
                ))
            params.append(("expires_in", String(Int(Lifetimes.shortLivedToken))))
        }
        if let code, type.code { params.append(("code", code)) }
        if type.idToken {
            params.append(
                (
                    "id_token",
                    try await IDTokenIssuer(services: services).issue(
                        app: app, user: user, granted: decision.granted, nonce: request.nonce)
                ))
        }
        if type.signedRequest {
            var payload: JSONObject = [
                "algorithm": "HMAC-SHA256", "issued_at": .int(Int64(now.timeIntervalSince1970)),
                "user_id": .string(scopedID),
            ]
            if let code { payload["code"] = .string(code) }
            params.append(("signed_request", SignedRequest.make(payload: payload, secret: app.secret)))
        }
        if type.graphDomain { params.append(("graph_domain", "facebook")) }
        if request.returnScopes || type.grantedScopes {
            params.append(("granted_scopes", decision.granted.joined(separator: ",")))
            params.append(("denied_scopes", decision.deniedThisTime.joined(separator: ",")))
        }
        if let state = request.state { params.append(("state", state)) }
        return DialogRedirect.url(redirectURI: request.redirectURI, parameters: params, inFragment: type.usesFragment)
    }
}
