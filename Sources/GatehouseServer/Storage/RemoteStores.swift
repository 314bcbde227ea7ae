import Foundation

/// Device-login codes.
public protocol DeviceCodeStore: Sendable {
    /// Throws `.conflict` when the code hash or user code is taken.
    func insert(_ code: DeviceCodeRecord) async throws
    func find(codeHash: String) async throws -> DeviceCodeRecord?
    /// The newest code with this (normalised) user code.
    func find(userCode: String) async throws -> DeviceCodeRecord?
    /// Writes `record` only if the stored row still has status `expected` and poll time `expectedPolledAt`;
    /// false when another request changed it first (two racing polls never both get a token).
    func update(_ record: DeviceCodeRecord, expecting expected: DeviceCodeStatus, expectedPolledAt: Date?) async throws -> Bool
}

/// The remote token cache's encrypted slots.
public protocol TokenCacheStore: Sendable {
    /// Inserts or replaces the slot.
    func put(_ slot: TokenCacheSlotRecord) async throws
    func find(appID: String, slot: String) async throws -> TokenCacheSlotRecord?
    /// True when a slot was deleted.
    func delete(appID: String, slot: String) async throws -> Bool
}

/// Server-held key material (the token cache's master key), created once and shared by every node.
public protocol ServerKeyStore: Sendable {
    /// The key named `name`; when there is none, `make()` is stored first. Racing callers all get the winner's key.
    func key(named name: String, orInsert make: @Sendable () -> [UInt8]) async throws -> [UInt8]
}

/// The persistent outbox of callbacks to apps.
public protocol AppCallbackStore: Sendable {
    func insert(_ callback: AppCallbackRecord) async throws
    func find(id: String) async throws -> AppCallbackRecord?
    /// Undelivered callbacks due at `now`, oldest due first.
    func due(now: Date, limit: Int) async throws -> [AppCallbackRecord]
    /// Takes a due callback for one attempt by moving its due time to `leaseUntil`; false when another
    /// worker took it first. A worker that dies mid-attempt leaves it due again at `leaseUntil`.
    func claim(id: String, expectedNextAttemptAt: Date, leaseUntil: Date) async throws -> Bool
    /// Replaces the stored callback with the same id.
    func update(_ callback: AppCallbackRecord) async throws
    /// One person's callbacks of a kind, newest first.
    func list(userID: String, kind: AppCallbackKind) async throws -> [AppCallbackRecord]
}
