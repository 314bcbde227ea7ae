import Foundation

/// What a callback tells the app.
package enum AppCallbackKind: String, Sendable, Codable, CaseIterable {
    /// The person removed the app (deauthorize callback URL).
    case deauthorize
    /// The person asked the app to delete their data (data deletion request URL).
    case dataDeletion = "data_deletion"
}

/// A callback waiting in (or delivered from) the outbox. Retries survive restarts because the schedule is here.
package struct AppCallbackRecord: Sendable, Codable, Equatable {
    package var id: String
    package var appID: String
    package var kind: AppCallbackKind
    /// The person's global id (to show them their deletion requests); never sent to the app.
    package var userID: String
    package var url: String
    /// The form body: `signed_request=…`.
    package var body: String
    package var attempts: Int
    /// When the next attempt is due; nil once delivered or given up.
    package var nextAttemptAt: Date?
    package var createdAt: Date
    package var deliveredAt: Date?
    package var gaveUpAt: Date?
    /// Why the last attempt failed (status or error type; never the app's reply body).
    package var lastError: String?
    /// From the app's data-deletion reply `{url, confirmation_code}`.
    package var confirmationCode: String?
    package var statusURL: String?

    package init(
        id: String, appID: String, kind: AppCallbackKind, userID: String, url: String, body: String, attempts: Int = 0,
        nextAttemptAt: Date?, createdAt: Date, deliveredAt: Date? = nil, gaveUpAt: Date? = nil,
        lastError: String? = nil,
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

/// The persistent outbox of callbacks to apps (table `app_callbacks`): the shared outbox operations, and the
/// list `/settings/apps` shows.
package protocol AppCallbackStore: OutboxStore where Item == AppCallbackRecord {
    /// One person's callbacks of a kind, newest first.
    func list(userID: String, kind: AppCallbackKind) async throws -> [AppCallbackRecord]
}
