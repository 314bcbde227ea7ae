import Foundation

/// One remote token-cache slot: encrypted token data under an address derived from the app's session secret.
package struct TokenCacheSlotRecord: Sendable, Codable, Equatable {
    package var appID: String
    /// Hex HMAC of the session secret under a per-app key; the secret itself is never stored.
    package var slot: String
    /// Base64 of AES-GCM's combined nonce ‖ ciphertext ‖ tag.
    package var sealed: String
    package var updatedAt: Date

    package init(appID: String, slot: String, sealed: String, updatedAt: Date) {
        self.appID = appID
        self.slot = slot
        self.sealed = sealed
        self.updatedAt = updatedAt
    }
}

/// The remote token cache's encrypted slots.
package protocol TokenCacheStore: Sendable {
    /// Inserts or replaces the slot.
    func put(_ slot: TokenCacheSlotRecord) async throws
    func find(appID: String, slot: String) async throws -> TokenCacheSlotRecord?
    /// True when a slot was deleted.
    func delete(appID: String, slot: String) async throws -> Bool
}

/// Server-held key material (the token cache's master key), created once and shared by every node.
package protocol ServerKeyStore: Sendable {
    /// The key named `name`; when there is none, `make()` is stored first. Racing callers all get the winner's key.
    func key(named name: String, orInsert make: @Sendable () -> [UInt8]) async throws -> [UInt8]
}
