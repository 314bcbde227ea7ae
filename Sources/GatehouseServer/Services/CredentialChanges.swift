import GatehouseCore
import Foundation
import Logging

/// The one way a person's password or an app's secret is replaced once they exist, so every path (scenario,
/// console, and any later one) ends the sessions the old credential opened, as Facebook does.
extension AccountService {
    /// Saves `user` (with whatever other changes it carries) under a new password, ends every mailed link (reset,
    /// confirmation) sent before, and signs the person out everywhere: `passwordChangedAt` moves to now, so every
    /// token issued before answers 190/460 and every
    /// browser session authenticated before is refused; the tokens are also revoked and the sessions deleted, so
    /// nothing issued in the same second (timestamps are stored in whole seconds) survives either.
    /// - Parameter at: when the change happens; nil is the clock's now. A scenario passes the time its new tokens
    ///   are issued at, so the ones it adds in the same apply are not older than the change.
    /// - Returns: the record as stored.
    /// - Throws: ``AccountError`` for a password under 6 characters; `StorageError.conflict` for a taken email.
    @discardableResult
    /// - Parameter event: how operators hear of it: ``EventType/passwordChanged``, or ``EventType/passwordReset``
    ///   for a mailed reset link.
    package func changePassword(
        of user: UserRecord, to password: String, at: Date? = nil, event: EventType = .passwordChanged
    ) async throws -> UserRecord {
        guard password.count >= 6 else { throw AccountError("passwords need at least 6 characters") }
        var changed = user
        changed.passwordHash = try await services.passwords.hash(password)
        let now = at ?? services.clock.now()
        changed.passwordChangedAt = now
        let storage = services.storage
        // The record first: from this write on, the caches (here and, through the invalidation feed, on other
        // nodes) read the new `passwordChangedAt`, which alone refuses every older token and session.
        try await storage.users.update(changed)
        try await storage.tokens.revokeAll(userID: user.id, at: now)
        try await storage.codes.expireAll(userID: user.id, at: now)
        // Reset and confirmation links sent before the change end with it (issue 39, finding 8).
        try await storage.accountCodes?.expireAll(userID: user.id, at: now)
        try await storage.sessions.deleteAll(userID: user.id)
        services.logger.info("password changed; tokens revoked and sessions ended", metadata: ["user": "\(user.id)"])
        await services.events.record(event, personID: user.id)
        return changed
    }

    /// After `user`'s address changed: every link mailed to the old address ends (issue 39, finding 8). Each
    /// link is also bound to the address it was sent to, so a path that does not call this still refuses it.
    package func addressChanged(_ user: UserRecord) async throws {
        try await services.storage.accountCodes?.expireAll(userID: user.id, at: services.clock.now())
    }

    /// Saves `app` under a new secret and revokes the app tokens issued under the old one (the `app_id|secret`
    /// form stops working by itself, since it is compared with the stored secret).
    package func changeSecret(of app: AppRecord, to secret: String) async throws {
        var changed = app
        changed.secret = secret
        try await services.storage.apps.update(changed)
        let now = services.clock.now()
        for token in try await services.storage.tokens.live(appID: app.id, userID: nil, now: now)
        where token.kind == .app {
            try await services.storage.tokens.revoke(id: token.id, at: now)
        }
        services.logger.info("app secret changed; app tokens revoked", metadata: ["app": "\(app.id)"])
    }
}
