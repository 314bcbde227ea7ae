import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// `GET|POST /oauth/access_token` for every grant Facebook clients use, and `/oauth/access_token_info`.
struct TokenEndpoint: Sendable {
    let services: GatehouseServices

    func handle(_ call: GraphCall) async throws -> GraphReply {
        switch call.param("grant_type") {
        case nil, "authorization_code": return try await exchangeCode(call)
        case "fb_exchange_token": return try await exchangeToken(call)
        case "client_credentials": return try await clientCredentials(call)
        case "fb_extend_sso_token": return try await extendSSO(call)
        case "fb_exchange_nonce": return try await exchangeNonce(call)
        case let other?: throw GraphFailure(.invalidParameter("Unsupported grant_type \(other.prefix(64))"))
        }
    }

    /// The app named by `client_id` (or the Basic credentials), and whether a presented secret matched.
    private func client(_ call: GraphCall) async throws -> (AppRecord, secretValid: Bool?) {
        guard let id = call.param("client_id") ?? call.basicCredentials?.id else {
            throw GraphFailure(.missingClientID)
        }
        guard id.count <= 32, let app = try await services.storage.apps.find(id: id) else {
            JournalNote.current?.explain("no app has the client_id `\(id.prefix(40))`")
            throw GraphFailure(.invalidApplicationID)
        }
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        let secret =
            call.param("client_secret") ?? (call.basicCredentials?.id == id ? call.basicCredentials?.secret : nil)
        let valid = secret.map { constantTimeEquals($0, app.secret) }
        if valid == false, let secret {
            JournalNote.current?.explain(
                "client_secret …\(secret.suffix(4)) does not match \(app.name)'s secret …\(app.secret.suffix(4)) (reset in the console?)"
            )
        }
        return (app, valid)
    }

    private func exchangeCode(_ call: GraphCall) async throws -> GraphReply {
        let (app, secretValid) = try await client(call)
        guard let code = call.param("code") else { throw GraphFailure(.invalidParameter("Missing authorization code")) }
        let storage = services.storage
        let found = code.utf8.count <= 256 ? try await storage.codes.find(codeHash: SecretHash.sha256Hex(code)) : nil
        // An app-switch nonce is not a code: it is redeemed only by `fb_exchange_nonce`.
        let record = found?.redirectURI == AuthCodeRecord.nonceExchangeMarker ? nil : found
        let now = services.clock.now()
        let presented = CodeExchange.Presented(
            clientID: app.id, redirectURI: call.params["redirect_uri"] ?? "", codeVerifier: call.param("code_verifier"),
            secretValid: secretValid, requirePKCE: app.requirePKCE)
        let decision = CodeExchange.decide(code: record, presented: presented, now: now)
        if let note = JournalNote.current {
            // The person's name is read only for a refusal: a successful exchange costs no extra statement.
            if let record, decision.isRefusal {
                note.identify(personID: nil, personName: try? await storage.users.find(id: record.userID)?.fullName)
            }
            if let reason = JournalExplanation.codeExchange(
                decision, code: record, presented: presented, found: found != nil, now: now)
            {
                note.explain(reason)
            }
        }
        switch decision {
        case .reject(let error):
            throw GraphFailure(error)
        case .rejectAndRevokeFamily(let error):
            if let record {
                try await storage.tokens.revokeAll(codeID: record.id, at: now)
                await services.events.record(
                    .codeReplayed, appID: app.id, personID: record.userID, ["code_id": record.id, "grant_type": "code"])
            }
            services.logger.warning(
                "authorization code replayed; tokens from it revoked", metadata: ["app": "\(app.id)"])
            throw GraphFailure(error)
        case .issue(let confidential):
            guard let record else { throw GraphFailure(.codeUsed) }
            let lifetime = confidential ? Lifetimes.longLivedToken : Lifetimes.shortLivedToken
            let (text, token) = services.tokens.newUserToken(
                app: app, userID: record.userID, lifetime: lifetime, codeID: record.id, authType: record.authType,
                authNonce: record.authNonce, origin: confidential ? "code" : "pkce")
            // Consuming the code, storing the token and their events commit together: one fsync, never a used
            // code without its token (on PostgreSQL one statement, its events after it).
            let exchanged = ["code_id": record.id, "grant_type": "code", "client": confidential ? "secret" : "pkce"]
            let minted = try await storage.consumeCode(id: record.id, at: now, storing: token) { events in
                try await events.record(.codeExchanged, appID: app.id, personID: record.userID, exchanged)
            }
            guard minted else {
                try await storage.tokens.revokeAll(codeID: record.id, at: now)
                await services.events.record(
                    .codeReplayed, appID: app.id, personID: record.userID, ["code_id": record.id, "grant_type": "code"])
                throw GraphFailure(.codeUsed)
            }
            services.metrics.tokenIssued("user")
            return .encodable(
                AccessTokenResponse(
                    accessToken: text, tokenType: "bearer", expiresIn: Int(lifetime),
                    idToken: try await idToken(for: record, app: app)))
        }
    }

    private func exchangeToken(_ call: GraphCall) async throws -> GraphReply {
        let (app, secretValid) = try await client(call)
        guard secretValid == true else { throw GraphFailure(.invalidClientSecret) }
        guard let input = call.param("fb_exchange_token") else {
            throw GraphFailure(.invalidParameter("Missing fb_exchange_token parameter"))
        }
        let user = try await userToken(input, app: app)
        // The new token stays in the family of the code the input came from, so replaying that code revokes it too.
        let (token, _) = try await services.tokens.mintUserToken(
            app: app, userID: user.user.id, lifetime: Lifetimes.longLivedToken, codeID: user.token.codeID,
            authType: user.token.authType, authNonce: user.token.authNonce, origin: "exchange")
        return .encodable(
            AccessTokenResponse(
                accessToken: token, tokenType: "bearer", expiresIn: Int(Lifetimes.longLivedToken), idToken: nil))
    }

    private func clientCredentials(_ call: GraphCall) async throws -> GraphReply {
        let (app, secretValid) = try await client(call)
        guard secretValid == true else { throw GraphFailure(.invalidClientSecret) }
        let token = try await services.tokens.mintAppToken(app: app)
        return .encodable(AccessTokenResponse(accessToken: token, tokenType: "bearer", expiresIn: nil, idToken: nil))
    }

    /// `grant_type=fb_exchange_nonce`: the iOS SDK redeems the dialog's one-time `nonce` (app-switch flow)
    /// with its client id; the nonce itself is the proof, so no secret is needed.
    private func exchangeNonce(_ call: GraphCall) async throws -> GraphReply {
        let (app, secretValid) = try await client(call)
        if secretValid == false { throw GraphFailure(.invalidClientSecret) }
        guard let nonce = call.param("fb_exchange_nonce") else {
            throw GraphFailure(.invalidParameter("Missing fb_exchange_nonce parameter"))
        }
        let storage = services.storage
        let now = services.clock.now()
        guard nonce.utf8.count <= 256, let record = try await storage.codes.find(codeHash: SecretHash.sha256Hex(nonce)),
            record.redirectURI == AuthCodeRecord.nonceExchangeMarker, record.appID == app.id
        else { throw GraphFailure(.invalidCodeFormat) }
        if record.usedAt != nil {
            try await storage.tokens.revokeAll(codeID: record.id, at: now)
            await services.events.record(
                .codeReplayed, appID: app.id, personID: record.userID, ["code_id": record.id, "grant_type": "nonce"])
            throw GraphFailure(.codeUsed)
        }
        if now >= record.expiresAt { throw GraphFailure(.codeExpired) }
        // A dialog that was sent a code challenge hands out a nonce only its verifier can redeem.
        if let challenge = record.codeChallenge {
            guard let verifier = call.param("code_verifier"), PKCE.isValidVerifier(verifier),
                PKCE.verify(verifier: verifier, challenge: challenge, method: record.codeChallengeMethod ?? "S256")
            else { throw GraphFailure(.invalidCodeVerifier) }
        } else if app.requirePKCE {
            throw GraphFailure(.codeChallengeRequired)
        }
        let tokens = services.tokens
        let exchanged = ["code_id": record.id, "grant_type": "nonce", "client": "nonce"]
        let minted = try await storage.transaction { tx -> String? in
            guard try await tx.codes.consume(id: record.id, at: now) else { return nil }
            let token = try await tokens.mintUserToken(
                app: app, userID: record.userID, lifetime: Lifetimes.shortLivedToken, codeID: record.id,
                authType: record.authType, authNonce: record.authNonce, origin: "nonce", into: tx.tokens
            ).0
            try await tx.events.record(.codeExchanged, appID: app.id, personID: record.userID, exchanged)
            return token
        }
        guard let token = minted else { throw GraphFailure(.codeUsed) }
        return .encodable(
            AccessTokenResponse(
                accessToken: token, tokenType: "bearer", expiresIn: Int(Lifetimes.shortLivedToken),
                idToken: try await idToken(for: record, app: app)))
    }

    /// The id_token for a redeemed code or nonce that was issued with `openid`, carrying its nonce.
    private func idToken(for record: AuthCodeRecord, app: AppRecord) async throws -> String? {
        guard record.scopes.contains("openid"), let user = try await services.storage.users.find(id: record.userID)
        else { return nil }
        let granted = try await services.storage.grants.find(appID: app.id, userID: user.id)?.granted ?? []
        return try await IDTokenIssuer(services: services).issue(
            app: app, user: user, granted: granted, nonce: record.nonce)
    }

    /// The mobile SDKs' daily refresh: the same token, its life extended.
    ///
    /// The client must name itself (`client_id`, as the SDKs always send) and be the token's app. A short-lived
    /// token the web dialog put in a URL fragment is not turned into a 60-day one: Facebook extends only the
    /// mobile SDKs' tokens this way (web apps need `fb_exchange_token` with the app secret), so such a token is
    /// answered with its current expiry.
    private func extendSSO(_ call: GraphCall) async throws -> GraphReply {
        guard let text = call.accessToken else { throw GraphFailure(.tokenRequired) }
        guard case .user(let user) = try await services.tokens.resolve(text).orThrow() else {
            throw GraphFailure(.activeTokenRequired)
        }
        guard let clientID = call.param("client_id") else { throw GraphFailure(.missingClientID) }
        guard clientID == user.app.id else { throw GraphFailure(.invalidApplicationID) }
        let now = services.clock.now()
        var expires = user.token.expiresAt ?? now.addingTimeInterval(Lifetimes.longLivedToken)
        if Self.extendable(origin: user.token.origin) {
            expires = now.addingTimeInterval(Lifetimes.longLivedToken)
            try await services.storage.tokens.setExpiry(id: user.token.id, expiresAt: expires)
        }
        return .encodable(
            ExtendSSOTokenResponse(
                accessToken: text, expiresAt: Int(expires.timeIntervalSince1970),
                dataAccessExpirationTime: Int(user.dataAccessExpiresAt.timeIntervalSince1970),
                expiresIn: max(0, Int(expires.timeIntervalSince(now))), graphDomain: "facebook"))
    }

    /// Whether `fb_extend_sso_token` may give a token 60 more days: every kind but the web dialog's fragment tokens.
    static func extendable(origin: String?) -> Bool { origin != "dialog" }

    /// `/oauth/access_token_info`: the token's remaining life and its `auth_nonce`.
    func info(_ call: GraphCall) async throws -> GraphReply {
        guard let text = call.accessToken else { throw GraphFailure(.tokenRequired) }
        guard case .user(let user) = try await services.tokens.resolve(text).orThrow() else {
            throw GraphFailure(.activeTokenRequired)
        }
        if let clientID = call.param("client_id"), clientID != user.app.id { throw GraphFailure(.invalidApplicationID) }
        let remaining = user.token.expiresAt.map { Int($0.timeIntervalSince(services.clock.now())) }
        return .encodable(
            AccessTokenInfoResponse(
                accessToken: text, tokenType: "bearer", expiresIn: remaining, authNonce: user.token.authNonce))
    }

    private func userToken(_ text: String, app: AppRecord) async throws -> UserCaller {
        switch try await services.tokens.resolve(text) {
        case .failure(let error): throw GraphFailure(error)
        case .success(.user(let user)) where user.app.id == app.id: return user
        case .success: throw GraphFailure(.invalidTokenFormat)
        }
    }
}

extension Result where Failure == GraphError {
    /// Unwraps or throws the Graph error as a `GraphFailure`.
    func orThrow() throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw GraphFailure(error)
        }
    }
}
