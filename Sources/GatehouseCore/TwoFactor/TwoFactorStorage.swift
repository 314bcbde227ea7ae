import Foundation

/// A person's second factor: the TOTP secret of their Code Generator.
///
/// Made when they start enrolling (``confirmedAt`` nil: logins do not ask for it yet), confirmed when they type
/// the first code it shows. The secret is base32 text; storage seals it when a master key is configured
/// (``SecretSealer``). Recovery codes live beside it as SHA-256 hashes only (``TwoFactorStore``).
package struct TwoFactorRecord: Sendable, Codable, Equatable {
    package var userID: String
    /// The shared secret, RFC 4648 base32 (what the person's app was given).
    package var secret: String
    package var createdAt: Date
    /// When the person proved their app works; nil while enrolling.
    package var confirmedAt: Date?
    /// The newest TOTP step accepted; a code of this step or an older one is refused (codes are good once).
    package var lastUsedStep: Int64?

    package init(userID: String, secret: String, createdAt: Date, confirmedAt: Date? = nil, lastUsedStep: Int64? = nil)
    {
        self.userID = userID
        self.secret = secret
        self.createdAt = createdAt
        self.confirmedAt = confirmedAt
        self.lastUsedStep = lastUsedStep
    }

    /// Whether logins ask for a code.
    package var isEnabled: Bool { confirmedAt != nil }

    /// The generator, or nil for a secret that is not base32 (never written by Gatehouse).
    package var totp: TOTP? { Base32.decode(secret).flatMap { $0.isEmpty ? nil : TOTP(secret: $0) } }
}

/// Second factors and their recovery codes (table `two_factor` and `two_factor_recovery_codes`).
package protocol TwoFactorStore: Sendable {
    func find(userID: String) async throws -> TwoFactorRecord?
    /// Inserts or replaces the person's record (re-enrolling replaces the secret).
    func save(_ record: TwoFactorRecord) async throws
    /// Removes the second factor and its recovery codes. Unknown people are ignored.
    func delete(userID: String) async throws
    /// Records `step` as used, atomically: true only when it is newer than the stored last step, so two
    /// requests racing with the same code cannot both pass.
    func useStep(userID: String, step: Int64) async throws -> Bool
    /// Replaces the person's recovery codes with these hashes (``RecoveryCodes/hash(_:)``).
    func replaceRecoveryCodes(userID: String, hashes: [String]) async throws
    /// Removes one recovery code, atomically: true when it was there (each code is good once).
    func useRecoveryCode(userID: String, hash: String) async throws -> Bool
    /// How many recovery codes are left.
    func recoveryCodesLeft(userID: String) async throws -> Int
}

/// Where and how a browser session was last used (table `session_activity`), for "Where you're logged in".
package struct SessionActivityRecord: Sendable, Equatable {
    package var session: BrowserSessionRecord
    /// The browser's User-Agent when it was last used (nil: never recorded, e.g. a session older than the table).
    package var userAgent: String?
    package var ip: String?
    package var lastUsedAt: Date?

    package init(session: BrowserSessionRecord, userAgent: String?, ip: String?, lastUsedAt: Date?) {
        self.session = session
        self.userAgent = userAgent
        self.ip = ip
        self.lastUsedAt = lastUsedAt
    }
}

/// The browser sessions' device, address and last use.
package protocol SessionActivityStore: Sendable {
    /// Records a use of the session (insert or update). An unknown session is ignored.
    func touch(sessionID: String, userAgent: String?, ip: String?, at: Date) async throws
    /// The person's sessions with their activity, most recently used first.
    func list(userID: String) async throws -> [SessionActivityRecord]
}

/// Second factors with their TOTP secret sealed in storage (``SecretSealer``), like the signing keys.
package struct SealedTwoFactorStore: TwoFactorStore {
    package let inner: any TwoFactorStore
    package let sealer: SecretSealer

    package func find(userID: String) async throws -> TwoFactorRecord? {
        guard var record = try await inner.find(userID: userID) else { return nil }
        record.secret = try sealer.open(text: record.secret)
        return record
    }

    package func save(_ record: TwoFactorRecord) async throws {
        var sealed = record
        sealed.secret = try sealer.seal(text: record.secret)
        try await inner.save(sealed)
    }

    package func delete(userID: String) async throws { try await inner.delete(userID: userID) }
    package func useStep(userID: String, step: Int64) async throws -> Bool {
        try await inner.useStep(userID: userID, step: step)
    }
    package func replaceRecoveryCodes(userID: String, hashes: [String]) async throws {
        try await inner.replaceRecoveryCodes(userID: userID, hashes: hashes)
    }
    package func useRecoveryCode(userID: String, hash: String) async throws -> Bool {
        try await inner.useRecoveryCode(userID: userID, hash: hash)
    }
    package func recoveryCodesLeft(userID: String) async throws -> Int {
        try await inner.recoveryCodesLeft(userID: userID)
    }
}
