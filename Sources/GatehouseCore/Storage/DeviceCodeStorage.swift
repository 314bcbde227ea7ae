import Foundation

/// Where a device-login code is in its life (see `DeviceLogin`).
package enum DeviceCodeStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for the person to enter the user code and consent.
    case pending
    /// The person consented; the next poll gets a token.
    case approved
    /// The person cancelled on the consent page.
    case declined
    /// A token was issued (or a decline reported); the code is spent.
    case consumed
}

/// One `POST /device/login`: the device's polling code (stored as a hash) and the code the person types.
package struct DeviceCodeRecord: Sendable, Codable, Equatable {
    package var id: String
    /// SHA-256 hex of the `code` the device polls with.
    package var codeHash: String
    /// The short code the person types on `/device`, normalised (uppercase, no separators).
    package var userCode: String
    package var appID: String
    /// Requested permissions, `public_profile` first.
    package var scopes: [String]
    package var createdAt: Date
    package var expiresAt: Date
    /// Seconds the device must wait between polls.
    package var interval: Int
    package var lastPolledAt: Date?
    package var status: DeviceCodeStatus
    /// The person who consented (global id).
    package var userID: String?
    package var decidedAt: Date?

    package init(
        id: String, codeHash: String, userCode: String, appID: String, scopes: [String], createdAt: Date,
        expiresAt: Date,
        interval: Int, lastPolledAt: Date? = nil, status: DeviceCodeStatus = .pending, userID: String? = nil,
        decidedAt: Date? = nil
    ) {
        self.id = id
        self.codeHash = codeHash
        self.userCode = userCode
        self.appID = appID
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.status = status
        self.userID = userID
        self.decidedAt = decidedAt
    }
}

/// Device-login codes.
package protocol DeviceCodeStore: Sendable {
    /// Throws `.conflict` when the code hash or user code is taken.
    func insert(_ code: DeviceCodeRecord) async throws
    func find(codeHash: String) async throws -> DeviceCodeRecord?
    /// The newest code with this (normalised) user code.
    func find(userCode: String) async throws -> DeviceCodeRecord?
    /// Writes `record` only if the stored row still has status `expected` and poll time `expectedPolledAt`;
    /// false when another request changed it first (two racing polls never both get a token).
    func update(_ record: DeviceCodeRecord, expecting expected: DeviceCodeStatus, expectedPolledAt: Date?) async throws
        -> Bool
}
