import Foundation

/// The token endpoint's answer to the code, `fb_exchange_token` and `client_credentials` grants:
/// `{"access_token":"EAA…","token_type":"bearer","expires_in":5183944}`.
public struct AccessTokenResponse: Sendable, Equatable, Codable {
    /// The token.
    public var accessToken: String
    /// Always `bearer` at Facebook.
    public var tokenType: String
    /// Seconds until expiry; absent for app tokens, which do not expire.
    public var expiresIn: Int?
    /// The OIDC id_token, present when `openid` was requested.
    public var idToken: String?

    /// Creates a response.
    public init(accessToken: String, tokenType: String = "bearer", expiresIn: Int? = nil, idToken: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.idToken = idToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", idToken = "id_token"
    }

    /// Decodes a response, defaulting `token_type` to `bearer` since older answers omit it.
    public init(from decoder: any Decoder) throws {
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
public struct ExtendSSOTokenResponse: Sendable, Equatable, Codable {
    /// The (possibly unchanged) token.
    public var accessToken: String
    /// Unix time the token expires.
    public var expiresAt: Int
    /// Unix time data access expires (90 days after last use).
    public var dataAccessExpirationTime: Int
    /// Seconds until expiry; Android reads it when present.
    public var expiresIn: Int?
    /// `facebook` for classic tokens; Android reads it when present.
    public var graphDomain: String?

    /// Creates a response.
    public init(
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
public struct AccessTokenInfoResponse: Sendable, Equatable, Codable {
    /// The token that was asked about.
    public var accessToken: String
    /// `bearer`.
    public var tokenType: String
    /// Seconds until expiry, if it expires.
    public var expiresIn: Int?
    /// The `auth_nonce` sent to the dialog with `auth_type=reauthenticate`.
    public var authNonce: String?

    /// Creates a response.
    public init(accessToken: String, tokenType: String = "bearer", expiresIn: Int? = nil, authNonce: String? = nil) {
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
public enum PermissionState: String, Sendable, Equatable, Codable, CaseIterable {
    /// The user granted it.
    case granted
    /// The user declined it; it is re-asked only with `auth_type=rerequest`.
    case declined
    /// Data access lapsed; `auth_type=reauthorize` renews it.
    case expired
}

/// One row of `/me/permissions`.
public struct PermissionStatus: Sendable, Equatable, Codable {
    /// The permission name.
    public var permission: String
    /// Its state.
    public var status: PermissionState

    /// Creates a row.
    public init(permission: String, status: PermissionState) {
        self.permission = permission
        self.status = status
    }
}

/// `GET /me/permissions`: `{"data":[{"permission":"email","status":"granted"}]}`.
public struct PermissionsResponse: Sendable, Equatable, Codable {
    /// The rows, `public_profile` first as Facebook lists it.
    public var data: [PermissionStatus]

    /// Creates a response.
    public init(data: [PermissionStatus]) {
        self.data = data
    }
}

/// `{"success":true}`, the answer to DELETE calls and friend-linking POSTs.
public struct SuccessResponse: Sendable, Equatable, Codable {
    /// Whether the call took effect.
    public var success: Bool

    /// Creates a response.
    public init(success: Bool = true) {
        self.success = success
    }
}
