import GatehouseCore
import Foundation
import GatehouseProtocol

/// Mints and checks access tokens. Token text is random (≥ 190 bits) and only its SHA-256 is stored.
package struct TokenService: Sendable {
    let services: GatehouseServices

    /// Mints a user token and returns its text (shown once) and record.
    package func mintUserToken(
        app: AppRecord, userID: String, lifetime: TimeInterval, codeID: String? = nil,
        authType: String? = nil, authNonce: String? = nil, origin: String, into tokens: (any TokenStore)? = nil
    ) async throws -> (String, TokenRecord) {
        let now = services.clock.now()
        let text = "EAAG" + services.random.alphanumeric(bits: 192)
        let record = TokenRecord(
            id: services.random.uuidString(), tokenHash: SecretHash.sha256Hex(text), kind: .user, appID: app.id, userID: userID,
            issuedAt: now, expiresAt: now.addingTimeInterval(lifetime), codeID: codeID, authType: authType,
            authNonce: authNonce, origin: origin)
        try await (tokens ?? services.storage.tokens).insert(record)
        services.metrics.tokenIssued("user")
        return (text, record)
    }

    /// Mints an app token `APPID|random`; it does not expire.
    func mintAppToken(app: AppRecord) async throws -> String {
        let text = "\(app.id)|" + services.random.alphanumeric(bits: 160)
        let record = TokenRecord(
            id: services.random.uuidString(), tokenHash: SecretHash.sha256Hex(text), kind: .app, appID: app.id, userID: nil,
            issuedAt: services.clock.now(), expiresAt: nil, origin: "client_credentials")
        try await services.storage.tokens.insert(record)
        services.metrics.tokenIssued("app")
        return text
    }

    /// Checks a presented token, giving the caller or the exact Graph error Facebook would give.
    ///
    /// A token seen before is answered from the node's ``CallerCache`` (facts only; the verdict is worked out
    /// again at every call by ``CallerRules``); otherwise the database decides and a valid caller's facts are
    /// kept, unless a write invalidated them while they were being read.
    package func resolve(_ text: String) async throws -> Result<Caller, GraphError> {
        guard !text.isEmpty, text.count <= 512 else { return .failure(.invalidTokenFormat) }
        let hash = SecretHash.sha256Hex(text)
        let cache = services.storage.callerCache
        let (hit, generation) = cache?.beginCaller(hash) ?? (nil, nil)
        if let hit, let verdict = CallerRules.evaluate(hit, text: text, now: services.clock.now()) {
            if case .failure(let error) = verdict, let note = JournalNote.current, case .user(let token, let user, _, let scopedID) = hit.kind {
                note.identify(appID: hit.app.id, appName: hit.app.name)
                note.identify(personID: scopedID, personName: user.fullName)
                note.explain(explanation(error, token: token, user: user, app: hit.app))
            }
            return verdict
        }
        let (result, facts) = try await resolveFromDatabase(text, hash: hash)
        if let cache, let facts, let generation { cache.storeCaller(facts, for: hash, ifGeneration: generation) }
        return result
    }

    /// The database's answer, and the facts behind it when the caller is valid.
    private func resolveFromDatabase(_ text: String, hash: String) async throws -> (Result<Caller, GraphError>, CallerFacts?) {
        let storage = services.storage
        if let bar = text.firstIndex(of: "|") {
            let appID = String(text[..<bar]), rest = String(text[text.index(after: bar)...])
            guard let app = try await storage.apps.find(id: appID) else { return (.failure(.invalidTokenFormat), nil) }
            if constantTimeEquals(rest, app.secret) { return (.success(.app(app)), CallerFacts(app: app, kind: .app(token: nil))) }
            if constantTimeEquals(rest, app.clientToken) { return (.success(.client(app)), CallerFacts(app: app, kind: .app(token: nil))) }
            if let record = try await storage.tokens.find(tokenHash: hash),
               record.kind == .app, record.appID == app.id, record.revokedAt == nil {
                return (.success(.app(app)), CallerFacts(app: app, kind: .app(token: record)))
            }
            return (.failure(GraphError.invalidAppToken), nil)
        }
        let records = try await userTokenRecords(hash: hash)
        guard let records, records.token.kind == .user, let userID = records.token.userID,
              let app = records.app, let user = records.user
        else { return (.failure(.invalidTokenFormat), nil) }
        var record = records.token
        // The cache's key is this same hash: one buffer for both (64 bytes for each cached caller).
        if record.tokenHash == hash { record.tokenHash = hash }
        let now = services.clock.now()
        func refuse(_ error: GraphError) -> (Result<Caller, GraphError>, CallerFacts?) {
            if let note = JournalNote.current {
                note.identify(appID: app.id, appName: app.name)
                note.identify(personID: records.scopedID, personName: user.fullName)
                note.explain(explanation(error, token: record, user: user, app: app))
            }
            return (.failure(error), nil)
        }
        if let changed = user.passwordChangedAt, changed > record.issuedAt { return refuse(.passwordChanged) }
        // Checked before the grant, as the cached path does (a person in a state has no working token at all).
        if let refused = user.accountState.graphError { return refuse(refused) }
        guard let grant = records.grant else { return refuse(.appNotAuthorized(appID: app.id)) }
        if record.revokedAt != nil { return refuse(.sessionLoggedOut) }
        if let expires = record.expiresAt, now >= expires { return refuse(.tokenExpired(expiredAt: expires, now: now)) }
        // Created on first use, so a person who never got one has none to join yet.
        let scoped = try await records.scopedID.asyncOr { try await storage.users.scopedID(appID: app.id, userID: userID) }
        // The miss answers with the person as a hit will, so the two answers cannot differ.
        let cachedUser = CallerFacts.cachedForm(of: user)
        let facts = CallerFacts(app: app, kind: .user(token: record, user: cachedUser, grant: grant, scopedID: scoped))
        return (.success(.user(UserCaller(
            tokenString: text, token: record, app: app, user: cachedUser, grant: grant, scopedID: scoped, now: now))), facts)
    }
}

extension TokenService {
    /// The journal's reason for refusing a user token, from the rows the check read (no further reads).
    func explanation(_ error: GraphError, token: TokenRecord, user: UserRecord, app: AppRecord) -> String {
        let now = services.clock.now()
        switch error.errorSubcode {
        case 460 where user.passwordChangedAt != nil:
            return JournalExplanation.passwordChanged(user.fullName, at: user.passwordChangedAt!, issuedAt: token.issuedAt)
        case 458: return JournalExplanation.appRemoved(user.fullName, appName: app.name)
        case 459, 464, 465, 467 where user.accountState != .active:
            return "\(user.fullName)'s account is \(user.accountState.rawValue) (set in the console, CLI, admin API or a scenario): "
                + JournalExplanation.forError(error)
        case 467 where token.revokedAt != nil: return JournalExplanation.revoked(at: token.revokedAt!)
        case 463 where token.expiresAt != nil:
            return JournalExplanation.tokenExpired(at: token.expiresAt!, now: now, clockOffset: services.clockControl?.currentOffset ?? 0)
        default: return JournalExplanation.forError(error)
        }
    }

    /// A user token's rows: in one joined statement where the storage offers it, else one statement each.
    /// Rows are read only as far as the checks need them, like the step-by-step path always did.
    fileprivate func userTokenRecords(hash: String) async throws -> CallerRecords? {
        let storage = services.storage
        if let joined = storage.callerRecords { return try await joined.callerRecords(tokenHash: hash) }
        guard let token = try await storage.tokens.find(tokenHash: hash) else { return nil }
        guard token.kind == .user, let userID = token.userID,
              let app = try await storage.apps.find(id: token.appID),
              let user = try await storage.users.find(id: userID)
        else { return CallerRecords(token: token) }
        if let changed = user.passwordChangedAt, changed > token.issuedAt {
            return CallerRecords(token: token, app: app, user: user)
        }
        let grant = try await storage.grants.find(appID: app.id, userID: userID)
        return CallerRecords(token: token, app: app, user: user, grant: grant)
    }
}

extension Optional where Wrapped: Sendable {
    /// The value, or what `fallback` makes when there is none.
    fileprivate func asyncOr(_ fallback: () async throws -> Wrapped) async throws -> Wrapped {
        if let self { return self }
        return try await fallback()
    }
}
