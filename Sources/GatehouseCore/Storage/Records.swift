import Foundation
import GatehouseProtocol

/// An application registered with Gatehouse (a Facebook "app").
package struct AppRecord: Sendable, Codable, Equatable {
    /// Numeric id of Facebook's length (15-16 digits), as a string.
    package var id: String
    /// The app secret. Kept in plain text because `appsecret_proof` and `signed_request` need the key itself.
    package var secret: String
    /// The client token used by mobile SDKs as `APPID|CLIENT_TOKEN`.
    package var clientToken: String
    package var name: String
    /// Valid OAuth redirect URIs, compared by exact string (see `RedirectURIPolicy`).
    package var redirectURIs: [String]
    /// "Require App Secret": Graph calls with user tokens must carry `appsecret_proof`.
    package var requireAppSecret: Bool
    /// "Require PKCE": every login dialog must carry a `code_challenge`, and every code and nonce is redeemed
    /// with its verifier, a secret alone is not enough.
    package var requirePKCE: Bool
    /// Permissions approved by App Review; `public_profile` and `email` never need approval.
    package var approvedPermissions: [String]
    package var deauthorizeCallbackURL: String?
    package var dataDeletionCallbackURL: String?
    package var createdAt: Date
    /// "Allowed Domains for the JavaScript SDK": the page origins (`https://shop.example`) whose pages may log in
    /// with `/sdk.js` (see `JavaScriptSDKDomains`). Empty: no page may.
    package var jsSDKDomains: [String]

    package init(
        id: String, secret: String, clientToken: String, name: String, redirectURIs: [String],
        requireAppSecret: Bool = false, requirePKCE: Bool = false, approvedPermissions: [String] = [],
        deauthorizeCallbackURL: String? = nil, dataDeletionCallbackURL: String? = nil, createdAt: Date,
        jsSDKDomains: [String] = []
    ) {
        self.jsSDKDomains = jsSDKDomains
        self.id = id
        self.secret = secret
        self.clientToken = clientToken
        self.name = name
        self.redirectURIs = redirectURIs
        self.requireAppSecret = requireAppSecret
        self.requirePKCE = requirePKCE
        self.approvedPermissions = approvedPermissions
        self.deauthorizeCallbackURL = deauthorizeCallbackURL
        self.dataDeletionCallbackURL = dataDeletionCallbackURL
        self.createdAt = createdAt
    }
}

extension AppRecord {
    /// Decodes exports written before "Require PKCE" or the JavaScript SDK domains existed (off, and none).
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id),
            secret: try c.decode(String.self, forKey: .secret),
            clientToken: try c.decode(String.self, forKey: .clientToken),
            name: try c.decode(String.self, forKey: .name),
            redirectURIs: try c.decode([String].self, forKey: .redirectURIs),
            requireAppSecret: try c.decode(Bool.self, forKey: .requireAppSecret),
            requirePKCE: try c.decodeIfPresent(Bool.self, forKey: .requirePKCE) ?? false,
            approvedPermissions: try c.decode([String].self, forKey: .approvedPermissions),
            deauthorizeCallbackURL: try c.decodeIfPresent(String.self, forKey: .deauthorizeCallbackURL),
            dataDeletionCallbackURL: try c.decodeIfPresent(String.self, forKey: .dataDeletionCallbackURL),
            createdAt: try c.decode(Date.self, forKey: .createdAt),
            jsSDKDomains: try c.decodeIfPresent([String].self, forKey: .jsSDKDomains) ?? [])
    }
}

/// A person's role on an app. Role holders may grant permissions the app has not had approved.
package enum AppRole: String, Sendable, Codable, CaseIterable {
    case admin, developer, tester
}

/// A place, as Facebook returns `location` and `hometown`.
package struct Place: Sendable, Codable, Equatable {
    package var id: String
    package var name: String
    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A person who can log in.
package struct UserRecord: Sendable, Codable, Equatable {
    /// Global numeric id. Apps never see it: they see an app-scoped id (`UserStore.scopedID`).
    package var id: String
    package var email: String
    /// bcrypt hash of the password; ``noPassword`` for a person made without one in development mode, who logs
    /// in only through the development login page's picker (or an admin API login).
    package var passwordHash: String
    package var firstName: String
    package var middleName: String?
    package var lastName: String
    /// `MM/DD/YYYY`, `MM/DD` or `YYYY`, as Facebook formats it.
    package var birthday: String?
    package var gender: String?
    package var link: String?
    package var location: Place?
    package var hometown: Place?
    /// The profile's favourite quotes (FQL's `quotes` column); nil until set in the console.
    package var quotes: String?
    /// A PNG the person uploaded; nil means a generated avatar is served.
    package var picture: Data?
    /// Set for test users: the app that owns them.
    package var testUserOfAppID: String?
    /// When the password last changed; tokens issued before it are invalid (190/460).
    package var passwordChangedAt: Date?
    package var createdAt: Date
    /// Where the account stands (checkpointed, unconfirmed, disabled, logged out everywhere); `.active` for most.
    package var accountState: AccountState
    /// Text profile fields without a property of their own (`locale`), by Graph field name. The field table
    /// (`UserFieldValue.all`) says which fields live here, so adding one needs no new property.
    package var profileText: [String: String]

    package init(
        id: String, email: String, passwordHash: String, firstName: String, middleName: String? = nil,
        lastName: String, birthday: String? = nil, gender: String? = nil, link: String? = nil,
        location: Place? = nil, hometown: Place? = nil, picture: Data? = nil, testUserOfAppID: String? = nil,
        passwordChangedAt: Date? = nil, quotes: String? = nil, createdAt: Date, accountState: AccountState = .active,
        profileText: [String: String] = [:]
    ) {
        self.accountState = accountState
        self.profileText = profileText
        self.quotes = quotes
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.birthday = birthday
        self.gender = gender
        self.link = link
        self.location = location
        self.hometown = hometown
        self.picture = picture
        self.testUserOfAppID = testUserOfAppID
        self.passwordChangedAt = passwordChangedAt
        self.createdAt = createdAt
    }

    /// "First Middle Last", as Facebook's `name`.
    package var fullName: String {
        [firstName, middleName, lastName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}

extension UserRecord {
    /// Decodes exports written before account states (everyone is then `.active`) or `profileText` existed.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id),
            email: try c.decode(String.self, forKey: .email),
            passwordHash: try c.decode(String.self, forKey: .passwordHash),
            firstName: try c.decode(String.self, forKey: .firstName),
            middleName: try c.decodeIfPresent(String.self, forKey: .middleName),
            lastName: try c.decode(String.self, forKey: .lastName),
            birthday: try c.decodeIfPresent(String.self, forKey: .birthday),
            gender: try c.decodeIfPresent(String.self, forKey: .gender),
            link: try c.decodeIfPresent(String.self, forKey: .link),
            location: try c.decodeIfPresent(Place.self, forKey: .location),
            hometown: try c.decodeIfPresent(Place.self, forKey: .hometown),
            picture: try c.decodeIfPresent(Data.self, forKey: .picture),
            testUserOfAppID: try c.decodeIfPresent(String.self, forKey: .testUserOfAppID),
            passwordChangedAt: try c.decodeIfPresent(Date.self, forKey: .passwordChangedAt),
            quotes: try c.decodeIfPresent(String.self, forKey: .quotes),
            createdAt: try c.decode(Date.self, forKey: .createdAt),
            accountState: try c.decodeIfPresent(AccountState.self, forKey: .accountState) ?? .active,
            profileText: try c.decodeIfPresent([String: String].self, forKey: .profileText) ?? [:])
    }
}

/// What a person has granted and declined to one app.
package struct GrantRecord: Sendable, Codable, Equatable {
    package var appID: String
    package var userID: String
    package var granted: [String]
    package var declined: [String]
    package var createdAt: Date
    package var updatedAt: Date
    /// The last login to the app; data access expires 90 days after it.
    package var lastLoginAt: Date
    /// The audience the person chose for the app's posts on the publish step; nil without publish permissions.
    package var defaultAudience: Audience?

    package init(
        appID: String, userID: String, granted: [String], declined: [String], createdAt: Date, updatedAt: Date,
        lastLoginAt: Date,
        defaultAudience: Audience? = nil
    ) {
        self.defaultAudience = defaultAudience
        self.appID = appID
        self.userID = userID
        self.granted = granted
        self.declined = declined
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastLoginAt = lastLoginAt
    }
}

/// An authorization code issued by the login dialog. Only its SHA-256 hash is stored.
package struct AuthCodeRecord: Sendable, Codable, Equatable {
    package var id: String
    package var codeHash: String
    package var appID: String
    package var userID: String
    package var redirectURI: String
    package var codeChallenge: String?
    /// `S256` or `plain`.
    package var codeChallengeMethod: String?
    package var nonce: String?
    package var authType: String?
    package var authNonce: String?
    /// The scopes granted at the time the code was issued (informational; tokens read live grants).
    package var scopes: [String]
    package var createdAt: Date
    package var expiresAt: Date
    package var usedAt: Date?

    package init(
        id: String, codeHash: String, appID: String, userID: String, redirectURI: String,
        codeChallenge: String? = nil, codeChallengeMethod: String? = nil, nonce: String? = nil,
        authType: String? = nil, authNonce: String? = nil, scopes: [String] = [],
        createdAt: Date, expiresAt: Date, usedAt: Date? = nil
    ) {
        self.id = id
        self.codeHash = codeHash
        self.appID = appID
        self.userID = userID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.nonce = nonce
        self.authType = authType
        self.authNonce = authNonce
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

extension AuthCodeRecord {
    /// The `redirectURI` of a record that is an app-switch `nonce`: redeemable only by `fb_exchange_nonce`.
    package static let nonceExchangeMarker = "urn:gatehouse:fb_exchange_nonce"
}

/// Whose token it is.
package enum TokenKind: String, Sendable, Codable {
    case user, app
}

/// An access token. Only its SHA-256 hash is stored; the token text exists only in the reply that issued it.
package struct TokenRecord: Sendable, Codable, Equatable {
    package var id: String
    package var tokenHash: String
    package var kind: TokenKind
    package var appID: String
    /// The global user id, for user tokens.
    package var userID: String?
    package var issuedAt: Date
    /// nil = never expires (app tokens).
    package var expiresAt: Date?
    /// Set when revoked (logout, app removal, code replay, console).
    package var revokedAt: Date?
    /// The authorization code this token was minted from, so a replayed code can revoke it.
    package var codeID: String?
    package var authType: String?
    package var authNonce: String?
    /// How the token was obtained, for `debug_token.metadata.sso` (e.g. `dialog`, `code`, `exchange`).
    package var origin: String?

    package init(
        id: String, tokenHash: String, kind: TokenKind, appID: String, userID: String?, issuedAt: Date,
        expiresAt: Date?, revokedAt: Date? = nil, codeID: String? = nil, authType: String? = nil,
        authNonce: String? = nil, origin: String? = nil
    ) {
        self.id = id
        self.tokenHash = tokenHash
        self.kind = kind
        self.appID = appID
        self.userID = userID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.codeID = codeID
        self.authType = authType
        self.authNonce = authNonce
        self.origin = origin
    }

    /// Whether the token's expiry has passed at `now` (an app token's never does): the line the stores' `live`
    /// and a caller's check draw, so a revocation can tell the live tokens it ended from already expired ones.
    package func hasExpired(at now: Date) -> Bool { expiresAt.map { now >= $0 } ?? false }
}

/// A logged-in browser. The cookie carries a random secret; only its hash is stored.
package struct BrowserSessionRecord: Sendable, Codable, Equatable {
    package var id: String
    package var secretHash: String
    package var userID: String
    package var createdAt: Date
    package var expiresAt: Date
    /// When the password was last entered in this session (for `auth_type=reauthenticate`).
    package var authenticatedAt: Date

    package init(
        id: String, secretHash: String, userID: String, createdAt: Date, expiresAt: Date, authenticatedAt: Date
    ) {
        self.id = id
        self.secretHash = secretHash
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.authenticatedAt = authenticatedAt
    }
}

/// An RSA key that signs id_tokens. Kept in the database so every node of a cluster signs with the same key.
package struct SigningKeyRecord: Sendable, Codable, Equatable {
    /// 40 hex characters, like Facebook's.
    package var kid: String
    /// PKCS#8 PEM of the RSA-2048 private key.
    package var privateKeyPEM: String
    /// A self-signed X.509 certificate for the key, in the form the iOS SDK reads (`/.well-known/oauth/openid/certs/`).
    package var certificatePEM: String
    package var createdAt: Date
    /// When a newer key took over signing; nil for the key in use.
    package var retiredAt: Date?
    /// Until when a retired key stays published, so tokens it signed still verify.
    package var publishUntil: Date?

    package init(
        kid: String, privateKeyPEM: String, certificatePEM: String, createdAt: Date, retiredAt: Date? = nil,
        publishUntil: Date? = nil
    ) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.certificatePEM = certificatePEM
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.publishUntil = publishUntil
    }
}
