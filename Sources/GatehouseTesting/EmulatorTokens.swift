import Foundation
import GatehouseProtocol

extension GatehouseEmulator {
    /// Mints a user access token without a browser (`POST /admin/api/v1/tokens`); `scopes` join the person's
    /// grant to the app, as a login asking for them would.
    ///
    /// - Parameters:
    ///   - app: nil: the demo app.
    ///   - expiresIn: the token's lifetime (60 seconds to a year); nil: 60 days, a long-lived token.
    public func mintToken(
        for person: TestUser, app: TestApp? = nil, scopes: [String] = [], expiresIn: TimeInterval? = nil
    ) async throws -> MintedToken {
        var body: JSONObject = [
            "app_id": .string((app ?? self.app).id), "person_id": .string(person.id),
            "scopes": .array(scopes.map(JSONValue.string)),
        ]
        if let expiresIn { body["expires_in"] = .int(Int64(expiresIn)) }
        let reply = try await admin.send("POST", "/tokens", body: .object(body))
        guard let token = reply?["access_token"]?.stringValue, let id = reply?["id"]?.stringValue else {
            throw EmulatorError.unexpectedAnswer("POST /tokens: no access_token or id")
        }
        return MintedToken(
            accessToken: token, id: id, expiresAt: reply?["expires_time"]?.date, scopes: reply?["scopes"]?.strings ?? []
        )
    }

    /// Mints a Limited Login id_token (a signed JWT, as the dialog returns with `response_type=id_token`) for
    /// `person` on `app` (nil: the demo app), carrying `nonce` (`POST /admin/api/v1/id-tokens`).
    public func mintIDToken(for person: TestUser, app: TestApp? = nil, nonce: String? = nil) async throws -> String {
        var body: JSONObject = ["app_id": .string((app ?? self.app).id), "person_id": .string(person.id)]
        if let nonce { body["nonce"] = .string(nonce) }
        guard let token = try await admin.send("POST", "/id-tokens", body: .object(body))?["id_token"]?.stringValue
        else {
            throw EmulatorError.unexpectedAnswer("POST /id-tokens: no id_token")
        }
        return token
    }

    /// Mints an authorization code, as the dialog redirects with (`POST /admin/api/v1/codes`), so a back end's code
    /// exchange at `/oauth/access_token` can be tested without a browser.
    ///
    /// - Parameters:
    ///   - redirectURI: one of the app's registered redirect URIs; nil: its first.
    ///   - codeChallenge, codeChallengeMethod: PKCE (`S256` or `plain`); the exchange must then send the verifier.
    public func mintCode(
        for person: TestUser, app: TestApp? = nil, redirectURI: String? = nil, scopes: [String] = [],
        codeChallenge: String? = nil, codeChallengeMethod: String? = nil
    ) async throws -> String {
        let app = app ?? self.app
        var body: JSONObject = [
            "app_id": .string(app.id), "person_id": .string(person.id),
            "redirect_uri": .string(redirectURI ?? app.redirectURI),
            "scopes": .array(scopes.map(JSONValue.string)),
        ]
        if let codeChallenge { body["code_challenge"] = .string(codeChallenge) }
        if let codeChallengeMethod { body["code_challenge_method"] = .string(codeChallengeMethod) }
        guard let code = try await admin.send("POST", "/codes", body: .object(body))?["code"]?.stringValue else {
            throw EmulatorError.unexpectedAnswer("POST /codes: no code")
        }
        return code
    }

    /// Revokes one token (`DELETE /admin/api/v1/tokens/{id}`): its next Graph call fails with error 190.
    public func revoke(_ token: MintedToken) async throws {
        try await admin.send("DELETE", "/tokens/\(token.id)")
    }

    /// Revokes every live token of `person` (for `app` only, when given), as a password change would
    /// (`POST /admin/api/v1/tokens/revoke`). Returns how many were revoked.
    @discardableResult
    public func revokeTokens(of person: TestUser, app: TestApp? = nil) async throws -> Int {
        var body: JSONObject = ["person_id": .string(person.id)]
        if let app { body["app_id"] = .string(app.id) }
        return Int(try await admin.send("POST", "/tokens/revoke", body: .object(body))?["revoked"]?.intValue ?? 0)
    }

    /// Revokes every live token of `app`, whoever holds it. Returns how many were revoked.
    @discardableResult
    public func revokeTokens(of app: TestApp) async throws -> Int {
        Int(
            try await admin.send("POST", "/tokens/revoke", body: ["app_id": .string(app.id)])?["revoked"]?.intValue ?? 0
        )
    }
}
