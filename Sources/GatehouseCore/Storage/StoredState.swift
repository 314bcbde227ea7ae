import Foundation

/// Everything ``EmulatorStore/replaceAll(with:)`` writes in place of the emulator's state: the rows of an
/// import, a reset to the development seed, or nothing at all for a reset to empty.
package struct StoredState: Sendable {
    /// A person's role in an app (`app_roles`).
    package struct Role: Codable, Sendable, Equatable {
        package var appID, userID: String
        package var role: AppRole

        package init(appID: String, userID: String, role: AppRole) {
            self.appID = appID
            self.userID = userID
            self.role = role
        }
    }

    /// A person's id in an app (`app_scoped_ids`).
    package struct ScopedID: Codable, Sendable, Equatable {
        package var appID, userID, scopedID: String

        package init(appID: String, userID: String, scopedID: String) {
            self.appID = appID
            self.userID = userID
            self.scopedID = scopedID
        }
    }

    package var apps: [AppRecord] = []
    package var users: [UserRecord] = []
    package var roles: [Role] = []
    package var scopedIDs: [ScopedID] = []
    /// Pairs of people's ids, either way round; a pair given twice, or a person paired with themselves, is one
    /// friendship or none, as ``FriendshipStore/befriend(_:_:at:)`` makes them.
    package var friendships: [(String, String)] = []
    package var grants: [GrantRecord] = []
    package var tokens: [TokenRecord] = []
    /// nil keeps the signing keys the database has (a reset, or an import without private keys), so id_tokens
    /// already handed out stay verifiable; otherwise these replace them.
    package var signingKeys: [SigningKeyRecord]?
    package var injections: [InjectedErrorRecord] = []
    package var posts: [PostRecord] = []
    package var appRequests: [AppRequestRecord] = []
    /// Apps' Webhooks subscriptions, written as they are (no verification request).
    package var webhookSubscriptions: [WebhookSubscriptionRecord] = []
    /// The emulator's settings (``EmulatorStore/setting(_:)``) by name.
    package var settings: [String: String] = [:]
    /// When the friendships and app-scoped ids were made.
    package var createdAt: Date

    /// Nothing: what a reset to empty leaves (the signing keys stay).
    package init(createdAt: Date) { self.createdAt = createdAt }
}
