import Foundation

// Records for issue 7 items 4, 5 and 7: device login codes, the remote token cache, and the
// outbox of callbacks to apps.

/// Where a device-login code is in its life (see `DeviceLogin`).
public enum DeviceCodeStatus: String, Sendable, Codable, CaseIterable {
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
public struct DeviceCodeRecord: Sendable, Codable, Equatable {
    public var id: String
    /// SHA-256 hex of the `code` the device polls with.
    public var codeHash: String
    /// The short code the person types on `/device`, normalised (uppercase, no separators).
    public var userCode: String
    public var appID: String
    /// Requested permissions, `public_profile` first.
    public var scopes: [String]
    public var createdAt: Date
    public var expiresAt: Date
    /// Seconds the device must wait between polls.
    public var interval: Int
    public var lastPolledAt: Date?
    public var status: DeviceCodeStatus
    /// The person who consented (global id).
    public var userID: String?
    public var decidedAt: Date?

    public init(
        id: String, codeHash: String, userCode: String, appID: String, scopes: [String], createdAt: Date, expiresAt: Date,
        interval: Int, lastPolledAt: Date? = nil, status: DeviceCodeStatus = .pending, userID: String? = nil, decidedAt: Date? = nil
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

/// One remote token-cache slot: encrypted token data under an address derived from the app's session secret.
public struct TokenCacheSlotRecord: Sendable, Codable, Equatable {
    public var appID: String
    /// Hex HMAC of the session secret under a per-app key; the secret itself is never stored.
    public var slot: String
    /// Base64 of AES-GCM's combined nonce ‖ ciphertext ‖ tag.
    public var sealed: String
    public var updatedAt: Date

    public init(appID: String, slot: String, sealed: String, updatedAt: Date) {
        self.appID = appID
        self.slot = slot
        self.sealed = sealed
        self.updatedAt = updatedAt
    }
}

/// What a callback tells the app.
public enum AppCallbackKind: String, Sendable, Codable, CaseIterable {
    /// The person removed the app (deauthorize callback URL).
    case deauthorize
    /// The person asked the app to delete their data (data deletion request URL).
    case dataDeletion = "data_deletion"
}

/// A callback waiting in (or delivered from) the outbox. Retries survive restarts because the schedule is here.
public struct AppCallbackRecord: Sendable, Codable, Equatable {
    public var id: String
    public var appID: String
    public var kind: AppCallbackKind
    /// The person's global id (to show them their deletion requests); never sent to the app.
    public var userID: String
    public var url: String
    /// The form body: `signed_request=…`.
    public var body: String
    public var attempts: Int
    /// When the next attempt is due; nil once delivered or given up.
    public var nextAttemptAt: Date?
    public var createdAt: Date
    public var deliveredAt: Date?
    public var gaveUpAt: Date?
    /// Why the last attempt failed (status or error type; never the app's reply body).
    public var lastError: String?
    /// From the app's data-deletion reply `{url, confirmation_code}`.
    public var confirmationCode: String?
    public var statusURL: String?

    public init(
        id: String, appID: String, kind: AppCallbackKind, userID: String, url: String, body: String, attempts: Int = 0,
        nextAttemptAt: Date?, createdAt: Date, deliveredAt: Date? = nil, gaveUpAt: Date? = nil, lastError: String? = nil,
        confirmationCode: String? = nil, statusURL: String? = nil
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.userID = userID
        self.url = url
        self.body = body
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.gaveUpAt = gaveUpAt
        self.lastError = lastError
        self.confirmationCode = confirmationCode
        self.statusURL = statusURL
    }
}
