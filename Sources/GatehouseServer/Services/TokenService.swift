import Foundation
import GatehouseProtocol

/// Who is calling, once a presented access token has been checked.
enum Caller: Sendable {
    /// A person's token for one app.
    case user(UserCaller)
    /// An app token (`APPID|…` minted, or the literal `APPID|APPSECRET`).
    case app(AppRecord)
    /// The mobile SDKs' `APPID|CLIENT_TOKEN`: identifies the app, grants no app-level rights.
    case client(AppRecord)

    var app: AppRecord {
        switch self {
        case .user(let u): u.app
        case .app(let a), .client(let a): a
        }
    }
}

/// A valid user token with everything it stands for.
struct UserCaller: Sendable {
    var tokenString: String
    var token: TokenRecord
    var app: AppRecord
    var user: UserRecord
    var grant: GrantRecord
    /// The user's id as this app sees it.
    var scopedID: String
    var now: Date

    var dataAccessExpiresAt: Date { grant.lastLoginAt.addingTimeInterval(Lifetimes.dataAccess) }
    var isDataAccessExpired: Bool { now >= dataAccessExpiresAt }

    /// Whether the app may read data behind `permission` right now.
    func has(_ permission: String) -> Bool {
        if permission == Permission.publicProfile { return true }
        return !isDataAccessExpired && grant.granted.contains(permission)
    }
}

/// Mints and checks access tokens. Token text is random (≥ 190 bits) and only its SHA-256 is stored.
struct TokenService: Sendable {
    let services: GatehouseServices

    /// Mints a user token and returns its text (shown once) and record.
    func mintUserToken(
        app: AppRecord, userID: String, lifetime: TimeInterval, codeID: String? = nil,
        authType: String? = nil, authNonce: String? = nil, origin: String
    ) async throws -> (String, TokenRecord) {
        let now = services.clock.now()
        let text = "EAAG" + services.random.alphanumeric(bits: 192)
        let record = TokenRecord(
            id: UUID().uuidString, tokenHash: SecretHash.sha256Hex(text), kind: .user, appID: app.id, userID: userID,
            issuedAt: now, expiresAt: now.addingTimeInterval(lifetime), codeID: codeID, authType: authType,
            authNonce: authNonce, origin: origin)
        try await services.storage.tokens.insert(record)
        services.metrics.tokenIssued("user")
        return (text, record)
    }

    /// Mints an app token `APPID|random`; it does not expire.
    func mintAppToken(app: AppRecord) async throws -> String {
        let text = "\(app.id)|" + services.random.alphanumeric(bits: 160)
        let record = TokenRecord(
            id: UUID().uuidString, tokenHash: SecretHash.sha256Hex(text), kind: .app, appID: app.id, userID: nil,
            issuedAt: services.clock.now(), expiresAt: nil, origin: "client_credentials")
        try await services.storage.tokens.insert(record)
        services.metrics.tokenIssued("app")
        return text
    }

    /// Checks a presented token, giving the caller or the exact Graph error Facebook would give.
    func resolve(_ text: String) async throws -> Result<Caller, GraphError> {
        let storage = services.storage
        guard !text.isEmpty, text.count <= 512 else { return .failure(.invalidTokenFormat) }
        if let bar = text.firstIndex(of: "|") {
            let appID = String(text[..<bar]), rest = String(text[text.index(after: bar)...])
            guard let app = try await storage.apps.find(id: appID) else { return .failure(.invalidTokenFormat) }
            if constantTimeEquals(rest, app.secret) { return .success(.app(app)) }
            if constantTimeEquals(rest, app.clientToken) { return .success(.client(app)) }
            if let record = try await storage.tokens.find(tokenHash: SecretHash.sha256Hex(text)),
               record.kind == .app, record.appID == app.id, record.revokedAt == nil {
                return .success(.app(app))
            }
            return .failure(GraphError.invalidAppToken)
        }
        guard let record = try await storage.tokens.find(tokenHash: SecretHash.sha256Hex(text)),
              record.kind == .user, let userID = record.userID,
              let app = try await storage.apps.find(id: record.appID),
              let user = try await storage.users.find(id: userID)
        else { return .failure(.invalidTokenFormat) }
        let now = services.clock.now()
        if let changed = user.passwordChangedAt, changed > record.issuedAt { return .failure(.passwordChanged) }
        guard let grant = try await storage.grants.find(appID: app.id, userID: userID) else {
            return .failure(.appNotAuthorized(appID: app.id))
        }
        if record.revokedAt != nil { return .failure(.sessionLoggedOut) }
        if let expires = record.expiresAt, now >= expires { return .failure(.tokenExpired(expiredAt: expires, now: now)) }
        let scoped = try await storage.users.scopedID(appID: app.id, userID: userID)
        return .success(.user(UserCaller(
            tokenString: text, token: record, app: app, user: user, grant: grant, scopedID: scoped, now: now)))
    }
}

extension GraphError {
    /// A token of the form `APPID|…` that matches nothing the app has.
    static var invalidAppToken: GraphError {
        GraphError(message: "Invalid OAuth access token signature.", type: "OAuthException", code: 190)
    }
}
