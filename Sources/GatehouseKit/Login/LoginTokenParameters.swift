import Foundation
import GatehouseProtocol

/// The token facts a login gathered from its callback and, for code and nonce logins, the token endpoint
/// (Facebook's `_LoginCompletionParameters`).
public struct LoginTokenParameters: Sendable, Equatable {
    /// The Graph token, from the callback or the token endpoint.
    public var accessToken: String?
    /// The OpenID Connect id_token, as it came (``LoginFinishing/complete(callbackURL:expectations:environment:graph:appID:)``
    /// verifies it before anything trusts it).
    public var idToken: String?
    /// From `user_id` or the `signed_request` payload; nil until known.
    public var userID: String?
    /// When the access token expires; nil becomes `distantFuture`.
    public var expirationDate: Date?
    /// nil becomes `distantFuture` on the token, as in Facebook's SDK.
    public var dataAccessExpirationDate: Date?
    /// `granted_scopes`: everything the app holds after this login.
    public var grantedPermissions: Set<String>
    /// `denied_scopes`: requested permissions that ended up declined.
    public var declinedPermissions: Set<String>
    /// `facebook` or `gaming`.
    public var graphDomain: String?
    /// Sent back with the next login's dialog.
    public var userTokenNonce: String?

    /// Facts given directly (tests, other flows).
    public init(
        accessToken: String? = nil, idToken: String? = nil, userID: String? = nil, expirationDate: Date? = nil,
        dataAccessExpirationDate: Date? = nil, grantedPermissions: Set<String> = [],
        declinedPermissions: Set<String> = [],
        graphDomain: String? = nil, userTokenNonce: String? = nil
    ) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.userID = userID
        self.expirationDate = expirationDate
        self.dataAccessExpirationDate = dataAccessExpirationDate
        self.grantedPermissions = grantedPermissions
        self.declinedPermissions = declinedPermissions
        self.graphDomain = graphDomain
        self.userTokenNonce = userTokenNonce
    }

    /// Reads a callback. An absolute `expires`/`expires_at` wins over the relative `expires_in`.
    package init(callback: LoginCallback, now: Date) {
        self.init(
            accessToken: callback.accessToken.flatMap { $0.isEmpty ? nil : $0 },
            idToken: callback.idToken.flatMap { $0.isEmpty ? nil : $0 },
            userID: callback.userID,
            expirationDate: callback.expiresAt ?? callback.expiresIn.map { now.addingTimeInterval($0) },
            dataAccessExpirationDate: callback.dataAccessExpirationTime,
            grantedPermissions: Set(callback.grantedScopes ?? []),
            declinedPermissions: Set(callback.deniedScopes ?? []),
            graphDomain: callback.graphDomain,
            userTokenNonce: callback.userTokenNonce.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Takes `access_token`, the expiry and `id_token` from a token-endpoint reply (not the data-access
    /// expiry, which Facebook's SDK does not read there). Fails when the reply has no token.
    public mutating func merge(tokenEndpointReply json: JSONValue, now: Date) throws {
        guard let token = json["access_token"]?.stringValue, !token.isEmpty else {
            throw LoginError(.unknown, message: "the token endpoint returned no access_token")
        }
        accessToken = token
        if let at = Self.number(json["expires_at"]) ?? Self.number(json["expires"]), at > 0 {
            expirationDate = Date(timeIntervalSince1970: at)
        } else if let seconds = Self.number(json["expires_in"]), seconds > 0 {
            expirationDate = now.addingTimeInterval(seconds)
        }
        if let idToken = json["id_token"]?.stringValue, !idToken.isEmpty { self.idToken = idToken }
    }

    private static func number(_ value: JSONValue?) -> TimeInterval? {
        if let number = value?.doubleValue { return number }
        return value?.stringValue.flatMap(TimeInterval.init)
    }
}

/// Turns gathered token facts into the login result (Facebook's `getSuccessResult`).
public enum LoginResultBuilder {
    /// - Parameters:
    ///   - previousToken: `AccessToken.current` when the callback arrived.
    ///   - parameters: with `userID` already resolved when there is an access token.
    public static func result(
        parameters: LoginTokenParameters, expectations: LoginExpectations, previousToken: AccessToken?, appID: String,
        now: Date
    ) -> LoginManagerLoginResult {
        // Not verified here: LoginFinishing.complete verifies the id_token (keys, nonce, claims) before it is stored.
        let authenticationToken = parameters.idToken.map {
            AuthenticationToken(
                tokenString: $0, nonce: expectations.nonce, graphDomain: parameters.graphDomain ?? "facebook")
        }
        let granted = parameters.grantedPermissions
        guard !granted.isEmpty else {
            return LoginManagerLoginResult(
                token: nil, authenticationToken: authenticationToken, isCancelled: true, grantedPermissions: [],
                declinedPermissions: [])
        }
        let requested = expectations.requestedPermissions
        let recentlyGranted = previousToken == nil ? granted : granted.intersection(requested)
        let recentlyDeclined = requested.intersection(parameters.declinedPermissions)
        var token: AccessToken?
        // A Limited Login never yields a Graph token, whatever the callback carried.
        if expectations.tracking == .enabled, let tokenString = parameters.accessToken {
            token = AccessToken(
                tokenString: tokenString, permissions: granted.sorted(),
                declinedPermissions: parameters.declinedPermissions.sorted(),
                expiredPermissions: [], appID: appID, userID: parameters.userID ?? "",
                expirationDate: parameters.expirationDate,
                refreshDate: now, dataAccessExpirationDate: parameters.dataAccessExpirationDate)
        }
        return LoginManagerLoginResult(
            token: token, authenticationToken: authenticationToken,
            isCancelled: token == nil && authenticationToken == nil,
            grantedPermissions: recentlyGranted, declinedPermissions: recentlyDeclined)
    }
}
