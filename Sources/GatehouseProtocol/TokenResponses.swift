import Foundation

/// The token endpoint's answer to the code, `fb_exchange_token` and `client_credentials` grants:
/// `{"access_token":"EAA…","token_type":"bearer","expires_in":5183944}`.
package struct AccessTokenResponse: Sendable, Equatable, Codable {
    /// The token.
    package var accessToken: String
    /// Always `bearer` at Facebook.
    package var tokenType: String
    /// Seconds until expiry; absent for app tokens, which do not expire.
    package var expiresIn: Int?
    /// The OIDC id_token, present when `openid` was requested.
    package var idToken: String?

    /// Creates a response.
    package init(accessToken: String, tokenType: String = "bearer", expiresIn: Int? = nil, idToken: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.idToken = idToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", idToken = "id_token"
    }

    /// Decodes a response, defaulting `token_type` to `bearer` since older answers omit it.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessToken: try container.decode(String.self, forKey: .accessToken),
            tokenType: try container.decodeIfPresent(String.self, forKey: .tokenType) ?? "bearer",
            expiresIn: try container.decodeIfPresent(Int.self, forKey: .expiresIn),
            idToken: try container.decodeIfPresent(String.self, forKey: .idToken))
    }
}

/// The answer to the mobile SDKs' `grant_type=fb_extend_sso_token` refresh, which reports
/// absolute expiry times rather than a lifetime.
package struct ExtendSSOTokenResponse: Sendable, Equatable, Codable {
    /// The (possibly unchanged) token.
    package var accessToken: String
    /// Unix time the token expires.
    package var expiresAt: Int
    /// Unix time data access expires (90 days after last use).
    package var dataAccessExpirationTime: Int
    /// Seconds until expiry; Android reads it when present.
    package var expiresIn: Int?
    /// `facebook` for classic tokens; Android reads it when present.
    package var graphDomain: String?

    /// Creates a response.
    package init(
        accessToken: String, expiresAt: Int, dataAccessExpirationTime: Int,
        expiresIn: Int? = nil, graphDomain: String? = nil
    ) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.dataAccessExpirationTime = dataAccessExpirationTime
        self.expiresIn = expiresIn
        self.graphDomain = graphDomain
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", expiresAt = "expires_at"
        case dataAccessExpirationTime = "data_access_expiration_time"
        case expiresIn = "expires_in", graphDomain = "graph_domain"
    }
}

/// `GET /oauth/access_token_info`; web frameworks compare `auth_nonce` after a reauthenticate.
package struct AccessTokenInfoResponse: Sendable, Equatable, Codable {
    /// The token that was asked about.
    package var accessToken: String
    /// `bearer`.
    package var tokenType: String
    /// Seconds until expiry, if it expires.
    package var expiresIn: Int?
    /// The `auth_nonce` sent to the dialog with `auth_type=reauthenticate`.
    package var authNonce: String?

    /// Creates a response.
    package init(accessToken: String, tokenType: String = "bearer", expiresIn: Int? = nil, authNonce: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.authNonce = authNonce
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", authNonce = "auth_nonce"
    }
}

/// Whether a permission is currently granted (`/me/permissions`).
package enum PermissionState: String, Sendable, Equatable, Codable, CaseIterable {
    /// The user granted it.
    case granted
    /// The user declined it; it is re-asked only with `auth_type=rerequest`.
    case declined
    /// Data access lapsed; `auth_type=reauthorize` renews it.
    case expired
}

/// One row of `/me/permissions`.
package struct PermissionStatus: Sendable, Equatable, Codable {
    /// The permission name.
    package var permission: String
    /// Its state.
    package var status: PermissionState

    /// Creates a row.
    package init(permission: String, status: PermissionState) {
        self.permission = permission
        self.status = status
    }
}

/// `GET /me/permissions`: `{"data":[{"permission":"email","status":"granted"}]}`.
package struct PermissionsResponse: Sendable, Equatable, Codable {
    /// The rows, `public_profile` first as Facebook lists it.
    package var data: [PermissionStatus]

    /// Creates a response.
    package init(data: [PermissionStatus]) {
        self.data = data
    }
}

/// `{"success":true}`, the answer to DELETE calls and friend-linking POSTs.
package struct SuccessResponse: Sendable, Equatable, Codable {
    /// Whether the call took effect.
    package var success: Bool

    /// Creates a response.
    package init(success: Bool = true) {
        self.success = success
    }
}
