import Foundation
import GatehouseCore

extension Storage {
    /// These stores with every token written or revoked announced as an event (`token.issued`, `token.revoked`),
    /// whichever path wrote it: the token endpoint, the dialog, the JavaScript SDK, the admin API, the console,
    /// password and state changes, app removal. A token stored in a transaction is announced once it commits.
    package func announcingTokenEvents(to events: any EventRecorder) -> Storage {
        var storage = self
        storage.tokens = EventTokenStore(base: tokens, events: events)
        if let writes { storage.writes = EventWriteTransactions(base: writes, events: events) }
        return storage
    }
}

/// The event a stored token is announced with; never the token itself (only its record's id).
enum TokenEvents {
    static func issued(_ token: TokenRecord, to events: any EventRecorder) async {
        var details = ["token_id": token.id, "kind": token.kind.rawValue]
        if let origin = token.origin { details["origin"] = origin }
        if let expires = token.expiresAt { details["expires_at"] = GatehouseEvent.timeText(expires) }
        await events.record(.tokenIssued, appID: token.appID, personID: token.userID, details)
    }

    /// `token.revoked` for each token in `tokens`; `details` say which revocation (`scope`) ended them.
    static func revoked(_ tokens: [TokenRecord], to events: any EventRecorder, _ details: [String: String]) async {
        for token in tokens {
            var details = details
            details["token_id"] = token.id
            details["kind"] = token.kind.rawValue
            await events.record(.tokenRevoked, appID: token.appID, personID: token.userID, details)
        }
    }
}

/// Announces each token write after it is stored.
struct EventTokenStore: TokenStore {
    let base: any TokenStore
    let events: any EventRecorder

    func insert(_ token: TokenRecord) async throws {
        try await base.insert(token)
        await TokenEvents.issued(token, to: events)
    }
    func find(tokenHash: String) async throws -> TokenRecord? { try await base.find(tokenHash: tokenHash) }
    func setExpiry(id: String, expiresAt: Date?) async throws { try await base.setExpiry(id: id, expiresAt: expiresAt) }
    func revoke(id: String, at: Date) async throws -> [TokenRecord] {
        try await announced(try await base.revoke(id: id, at: at), at: at, ["scope": "token"])
    }
    func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        try await announced(
            try await base.revokeAll(appID: appID, userID: userID, at: at), at: at, ["scope": "app_and_person"])
    }
    func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        try await announced(try await base.revokeAll(userID: userID, at: at), at: at, ["scope": "person"])
    }
    func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        try await announced(
            try await base.revokeAll(codeID: codeID, at: at), at: at, ["scope": "code_family", "code_id": codeID])
    }

    /// One `token.revoked` per token this revocation ended: none when nothing was live (a person with no token, a
    /// token already revoked); a token whose expiry had passed was already announced by `token.expired`.
    private func announced(_ revoked: [TokenRecord], at: Date, _ details: [String: String]) async -> [TokenRecord] {
        await TokenEvents.revoked(revoked.filter { $0.expiresAt.map { $0 > at } ?? true }, to: events, details)
        return revoked
    }
    func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        try await base.live(appID: appID, userID: userID, now: now)
    }
}

/// Tokens stored in a transaction are gathered and announced once it commits (a rolled-back one is not).
struct EventWriteTransactions: WriteTransactions {
    let base: any WriteTransactions
    let events: any EventRecorder

    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        let (result, stored) = try await base.write { tx in
            // A fresh gatherer per run: a group commit may run the body again.
            let gatherer = StoredTokens(base: tx.tokens)
            var stores = tx
            stores.tokens = gatherer
            let result = try await body(stores)
            return (result, gatherer.stored.withLockedValue { $0 })
        }
        for token in stored { await TokenEvents.issued(token, to: events) }
        return result
    }

    func consumeCode(id: String, at: Date, storing token: TokenRecord) async throws -> Bool {
        guard try await base.consumeCode(id: id, at: at, storing: token) else { return false }
        await TokenEvents.issued(token, to: events)
        return true
    }

    func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws {
        try await base.saveGrant(grant, storing: code)
    }
}

/// A transaction's token store that remembers the tokens it stored.
private struct StoredTokens: TokenStore {
    let base: any TokenStore
    let stored = LockedValue<[TokenRecord]>([])

    func insert(_ token: TokenRecord) async throws {
        try await base.insert(token)
        stored.withLockedValue { $0.append(token) }
    }
    func find(tokenHash: String) async throws -> TokenRecord? { try await base.find(tokenHash: tokenHash) }
    func setExpiry(id: String, expiresAt: Date?) async throws { try await base.setExpiry(id: id, expiresAt: expiresAt) }
    func revoke(id: String, at: Date) async throws -> [TokenRecord] { try await base.revoke(id: id, at: at) }
    func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(appID: appID, userID: userID, at: at)
    }
    func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(userID: userID, at: at)
    }
    func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(codeID: codeID, at: at)
    }
    func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        try await base.live(appID: appID, userID: userID, now: now)
    }
}
