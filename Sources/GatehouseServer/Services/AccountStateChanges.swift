import GatehouseCore
import Foundation
import Logging

/// The one way a person's account state changes, so every path (console, CLI, admin API, scenario, the dialog's
/// checkpoint page) has the same side effects.
extension AccountService {
    /// Puts `user` in `state` and returns the record as stored.
    ///
    /// The record is written first: from then on the caches, here and on every other node (the write announces
    /// `user:ID`), read the new state, and every token of the person answers the state's 190 subcode. Entering
    /// any state but `.active` also ends the person's browser sessions and expires their unused codes, so they
    /// meet the state's page at their next login; `.loggedOut` revokes their tokens too, since it is cleared by
    /// logging in again and those tokens must stay dead after that. Setting the state a person already has
    /// changes nothing.
    /// - Parameter at: when; nil is the clock's now.
    @discardableResult
    package func setAccountState(of user: UserRecord, to state: AccountState, at: Date? = nil) async throws
        -> UserRecord
    {
        guard user.accountState != state else { return user }
        var changed = user
        changed.accountState = state
        let storage = services.storage
        try await storage.users.update(changed)
        if state.endsSessions {
            let now = at ?? services.clock.now()
            if state == .loggedOut { try await storage.tokens.revokeAll(userID: user.id, at: now) }
            try await storage.codes.expireAll(userID: user.id, at: now)
            try await storage.sessions.deleteAll(userID: user.id)
        }
        services.logger.info("account state changed", metadata: ["user": "\(user.id)", "state": "\(state.rawValue)"])
        await services.events.record(
            .accountStateChanged, personID: user.id, ["from": user.accountState.rawValue, "to": state.rawValue])
        return changed
    }
}
