import GatehouseCore
import Foundation
import Logging

/// "Delete my account" (issue 32): every app the person used is told, then the person is gone.
///
/// Each app gets its data-deletion callback (when it has a URL; through the outbox, whose rows outlive the account
/// on purpose) and its deauthorize callback (``AppRemoval``). Then the person is deleted (``erase(_:)``): their
/// grants, tokens, codes, sessions, second factor and mail go with them. What stays is ``rememberDeleted(_:)``'s
/// hashes, so the old tokens answer as Facebook answers a deleted person's.
package struct AccountDeletion: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// Returns the names of the apps that were told.
    @discardableResult
    package func delete(_ user: UserRecord) async throws -> [String] {
        let storage = services.storage
        // Before any revocation: the live tokens are what must answer as a deleted person's.
        try await rememberDeleted(user)
        // Before the app removals, so each live token is announced once, as all of the person's (`scope: person`).
        try await revokeTokens(of: user)
        var told: [String] = []
        for grant in try await storage.grants.grants(userID: user.id) {
            guard let app = try await storage.apps.find(id: grant.appID) else { continue }
            let scoped = try await storage.users.scopedID(appID: app.id, userID: user.id)
            _ = try await services.outbox.enqueue(
                .dataDeletion, app: app, userID: user.id, scopedUserID: scoped, at: services.clock.now())
            try await AppRemoval(services: services).remove(appID: app.id, userID: user.id, scopedID: scoped)
            told.append(app.name)
        }
        try await erase(user)
        services.logger.info("account deleted", metadata: ["user": "\(user.id)", "apps": "\(told.count)"])
        await services.events.record(.accountDeleted, personID: user.id, ["apps_told": "\(told.count)"])
        return told
    }

    /// The person and what hangs off them, however they went (their settings, the admin API and CLI, an app
    /// deleting its test user, ``AppDeletion``), after ``rememberDeleted(_:)`` where the old tokens are to answer
    /// as a deleted person's. Foreign keys would cascade the rest, but a cascade
    /// announces nothing: the tokens are revoked first, so each live one is a `token.revoked` event (`scope:
    /// person`; the `account.deleted` that follows says why) and every node drops its cached callers; the
    /// sessions likewise; the mail is deleted here, since the outbox has no foreign key.
    func erase(_ user: UserRecord) async throws {
        let storage = services.storage
        try await revokeTokens(of: user)
        try await storage.sessions.deleteAll(userID: user.id)
        try await storage.twoFactor?.delete(userID: user.id)
        // The outbox keeps no address or id of a deleted person (issue 39, finding 9), queued mail included.
        try await storage.mail?.deleteAll(userID: user.id, address: EmailAddress.normalised(user.email) ?? user.email)
        try await storage.users.delete(id: user.id)
    }

    /// Through the shared store, whose revocations are announced (`token.revoked`, one per live token ended).
    private func revokeTokens(of user: UserRecord) async throws {
        try await services.storage.tokens.revokeAll(userID: user.id, at: services.clock.now())
    }

    /// Keeps what a deleted account leaves (``DeletedAccountRecord``: the hashes of its live tokens and of its
    /// address, nothing else), so its old tokens answer 190/458 and the journal can say why its address no longer
    /// logs in. Every way an account is deleted (the person's settings, the admin API) calls it before the person
    /// is gone; rows past their time are dropped on the way.
    func rememberDeleted(_ user: UserRecord) async throws {
        guard let store = services.storage.deletedAccounts else { return }
        let now = services.clock.now()
        var rows = try await services.storage.tokens.live(appID: nil, userID: user.id, now: now).filter {
            $0.kind == .user
        }.map { token in
            DeletedAccountRecord(
                key: DeletedAccountRecord.tokenKey(tokenHash: token.tokenHash), appID: token.appID, deletedAt: now,
                forgetAt: token.expiresAt ?? now.addingTimeInterval(Lifetimes.longLivedToken))
        }
        if let email = EmailAddress.normalised(user.email) {
            rows.append(
                DeletedAccountRecord(
                    key: DeletedAccountRecord.emailKey(email), appID: nil, deletedAt: now,
                    forgetAt: now.addingTimeInterval(DeletedAccountRecord.addressKeptFor)))
        }
        try await store.remember(rows)
        try await store.forget(before: now)
    }
}
