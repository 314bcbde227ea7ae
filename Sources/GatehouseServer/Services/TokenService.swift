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
        let (text, record) = newUserToken(
            app: app, userID: userID, lifetime: lifetime, codeID: codeID, authType: authType, authNonce: authNonce,
            origin: origin)
        try await (tokens ?? services.storage.tokens).insert(record)
        services.metrics.tokenIssued("user")
        return (text, record)
    }

    /// A user token's text and record, not yet stored: for a transaction that stores it with other writes (the code
    /// exchange), which counts it once stored.
    package func newUserToken(
        app: AppRecord, userID: String, lifetime: TimeInterval, codeID: String? = nil,
        authType: String? = nil, authNonce: String? = nil, origin: String
    ) -> (String, TokenRecord) {
        let now = services.clock.now()
        let text = "EAAG" + services.random.alphanumeric(bits: 192)
        let record = TokenRecord(
            id: services.random.uuidString(), tokenHash: SecretHash.sha256Hex(text), kind: .user, appID: app.id,
            userID: userID,
            issuedAt: now, expiresAt: now.addingTimeInterval(lifetime), codeID: codeID, authType: authType,
            authNonce: authNonce, origin: origin)
        return (text, record)
    }

    /// Mints an app token `APPID|random`; it does not expire.
    func mintAppToken(app: AppRecord) async throws -> String {
        let text = "\(app.id)|" + services.random.alphanumeric(bits: 160)
        let record = TokenRecord(
            id: services.random.uuidString(), tokenHash: SecretHash.sha256Hex(text), kind: .app, appID: app.id,
            userID: nil,
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
            if case .failure(let error) = verdict, let note = JournalNote.current,
                case .user(let token, let user, _, let scopedID) = hit.kind
            {
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

    /// The database's answer, and the facts behind it when the caller is valid: the rows are read, made into
    /// ``CallerFacts`` and judged by the same ``CallerRules`` a cache hit is.
    private func resolveFromDatabase(_ text: String, hash: String) async throws -> (
        Result<Caller, GraphError>, CallerFacts?
    ) {
        let storage = services.storage
        let now = services.clock.now()
        if let bar = text.firstIndex(of: "|") {
            guard let app = try await storage.apps.find(id: String(text[..<bar])) else {
                return (.failure(.invalidTokenFormat), nil)
            }
            // The secret and the client token need no further read; a minted app token is looked up only then.
            let bare = CallerFacts(app: app, kind: .app(token: nil))
            if let verdict = CallerRules.evaluate(bare, text: text, now: now) { return (verdict, bare) }
            let minted = CallerFacts(app: app, kind: .app(token: try await storage.tokens.find(tokenHash: hash)))
            if let verdict = CallerRules.evaluate(minted, text: text, now: now) { return (verdict, minted) }
            return (.failure(GraphError.invalidAppToken), nil)
        }
        guard let records = try await storage.callerRecords.callerRecords(tokenHash: hash) else {
            return (try await deletedAccountAnswer(hash: hash, now: now) ?? .failure(.invalidTokenFormat), nil)
        }
        guard records.token.kind == .user, let userID = records.token.userID, let app = records.app,
            let user = records.user
        else { return (.failure(.invalidTokenFormat), nil) }
        var record = records.token
        // The cache's key is this same hash: one buffer for both (64 bytes for each cached caller).
        if record.tokenHash == hash { record.tokenHash = hash }
        func refuse(_ error: GraphError) -> (Result<Caller, GraphError>, CallerFacts?) {
            if let note = JournalNote.current {
                note.identify(appID: app.id, appName: app.name)
                note.identify(personID: records.scopedID, personName: user.fullName)
                note.explain(explanation(error, token: record, user: user, app: app))
            }
            return (.failure(error), nil)
        }
        // Refused before the app-scoped id is looked up (and perhaps created): a dead token writes nothing.
        if let refusal = CallerRules.refusal(token: record, user: user, grant: records.grant, appID: app.id, now: now) {
            return refuse(refusal)
        }
        guard let grant = records.grant else { return refuse(.appNotAuthorized(appID: app.id)) }
        // Created on first use, so a person who never got one has none to join yet.
        let scoped = try await records.scopedID.asyncOr {
            try await storage.users.scopedID(appID: app.id, userID: userID)
        }
        // The miss answers with the person as a hit will, so the two answers cannot differ.
        let facts = CallerFacts(
            app: app, kind: .user(token: record, user: CallerFacts.cachedForm(of: user), grant: grant, scopedID: scoped)
        )
        switch CallerRules.evaluate(facts, text: text, now: now) {
        case .success(let caller)?: return (.success(caller), facts)
        case .failure(let error)?: return refuse(error)
        case nil: return (.failure(.invalidTokenFormat), nil)
        }
    }
}

extension TokenService {
    /// A token of an account that was deleted (``DeletedAccountRecord``): Facebook's answer once the account is gone.
    ///
    /// Deleting an account removes every app from it (Gatehouse sends each its deauthorize callback), so its tokens
    /// answer as a removed app's do: 190/458 "The user has not authorized application {app-id}." The wire reference
    /// lists no subcode of its own for a deleted person; 458 is its "app not installed", and 465 ("the session user
    /// is invalid") already means disabled here. nil when the token was never a deleted account's.
    func deletedAccountAnswer(hash: String, now: Date) async throws -> Result<Caller, GraphError>? {
        guard
            let gone = try await services.storage.deletedAccounts?.find(
                key: DeletedAccountRecord.tokenKey(tokenHash: hash), now: now),
            let appID = gone.appID
        else { return nil }
        if let note = JournalNote.current {
            if let app = try await services.storage.apps.find(id: appID) {
                note.identify(appID: app.id, appName: app.name)
            }
            note.explain(JournalExplanation.accountDeleted(at: gone.deletedAt))
        }
        return .failure(.appNotAuthorized(appID: appID))
    }

    /// The journal's reason for refusing a user token, from the rows the check read (no further reads).
    func explanation(_ error: GraphError, token: TokenRecord, user: UserRecord, app: AppRecord) -> String {
        let now = services.clock.now()
        switch error.errorSubcode.flatMap(SessionSubcode.init(rawValue:)) {
        case .passwordChanged where user.passwordChangedAt != nil:
            return JournalExplanation.passwordChanged(
                user.fullName, at: user.passwordChangedAt!, issuedAt: token.issuedAt)
        case .appNotAuthorized: return JournalExplanation.appRemoved(user.fullName, appName: app.name)
        // These come only from an account state; a logged-out session also from a revoked token (below).
        case .checkpointed, .unconfirmed, .invalidUser:
            return stateExplanation(error, user: user)
        case .loggedOut where user.accountState != .active:
            return stateExplanation(error, user: user)
        case .loggedOut where token.revokedAt != nil: return JournalExplanation.revoked(at: token.revokedAt!)
        case .expired where token.expiresAt != nil:
            return JournalExplanation.tokenExpired(
                at: token.expiresAt!, now: now, clockOffset: services.clockControl?.currentOffset ?? 0)
        default: return JournalExplanation.of(error)
        }
    }
}

extension TokenService {
    fileprivate func stateExplanation(_ error: GraphError, user: UserRecord) -> String {
        "\(user.fullName)'s account is \(user.accountState.rawValue) (set in the console, CLI, admin API or a scenario): "
            + JournalExplanation.of(error)
    }
}

extension Optional where Wrapped: Sendable {
    /// The value, or what `fallback` makes when there is none.
    fileprivate func asyncOr(_ fallback: () async throws -> Wrapped) async throws -> Wrapped {
        if let self { return self }
        return try await fallback()
    }
}
