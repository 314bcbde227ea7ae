import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/id-tokens` and `/codes`: a Limited Login id_token, and an authorization code a back end can exchange at
/// `/oauth/access_token`, both without a browser.
struct V1Codes: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .post, path: "/id-tokens") { try await idToken($0) },
            V1Route(method: .post, path: "/codes") { try await code($0) },
        ]
    }

    /// `POST /id-tokens {app_id, person_id, nonce?}`: signed as the Limited Login dialog signs it, revealing what the
    /// person granted the app.
    func idToken(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let (app, person) = try await V1Tokens.subjects(&body, services: services)
        let nonce = try body.string("nonce", max: 200)
        try body.finish()
        let granted =
            try await services.storage.grants.find(appID: app.id, userID: person.id)?.granted ?? [
                Permission.publicProfile
            ]
        let token = try await IDTokenIssuer(services: services).issue(
            app: app, user: person, granted: granted, nonce: nonce)
        return AdminAPIv1.reply(["id_token": .string(token)], status: .created)
    }

    /// `POST /codes {app_id, person_id, redirect_uri, scopes, code_challenge?, code_challenge_method?, nonce?}`: the
    /// scopes join the person's grant and the code is stored with it in one transaction, as the dialog does.
    func code(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let (app, person) = try await V1Tokens.subjects(&body, services: services)
        let redirectURI = try body.requiredString("redirect_uri", max: 2000)
        let scopes = try body.permissions("scopes") ?? []
        let challenge = try body.string("code_challenge", max: 128)
        let method = try body.string("code_challenge_method", max: 10)
        let nonce = try body.string("nonce", max: 200)
        try body.finish()
        guard app.redirectURIs.contains(redirectURI) else {
            throw Problem.validation("redirect_uri", "redirect_uri must be one of the app's registered redirect URIs")
        }
        if let method, !["S256", "plain"].contains(method) {
            throw Problem.validation("code_challenge_method", "code_challenge_method must be S256 or plain")
        }
        if method != nil, challenge == nil {
            throw Problem.validation("code_challenge", "code_challenge_method needs a code_challenge")
        }
        if app.requirePKCE, challenge == nil {
            throw Problem.validation("code_challenge", "the app requires PKCE: send a code_challenge")
        }
        let grant = try await V1Tokens.grant(scopes, app: app, person: person, services: services)
        let now = services.clock.now()
        let text = "AQ" + services.random.alphanumeric(bits: 256)
        let record = AuthCodeRecord(
            id: services.random.uuidString(), codeHash: SecretHash.sha256Hex(text), appID: app.id, userID: person.id,
            redirectURI: redirectURI,
            codeChallenge: challenge, codeChallengeMethod: method, nonce: nonce,
            scopes: grant.granted, createdAt: now, expiresAt: now.addingTimeInterval(Lifetimes.authorizationCode))
        try await services.storage.transaction { tx in
            try await tx.grants.save(grant)
            try await tx.codes.insert(record)
        }
        services.metrics.tokenIssued("code")
        return AdminAPIv1.reply(
            [
                "code": .string(text), "redirect_uri": .string(redirectURI),
                "expires_in": .int(Int64(Lifetimes.authorizationCode)),
            ], status: .created)
    }
}
