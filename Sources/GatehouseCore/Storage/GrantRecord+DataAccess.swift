import Foundation

extension GrantRecord {
    /// When the app's access to the person's data ends: 90 days after their last login to it, as Facebook's data
    /// access expiration works. The one place the rule is written; the Graph API, `debug_token`, the dialog's and
    /// the device flow's answers, the JavaScript SDK's status, the settings page and the admin API read it.
    package var dataAccessExpiresAt: Date { Self.dataAccessExpiry(lastLoginAt: lastLoginAt) }

    /// Whether data access has ended at `now` (on the injected clock).
    package func isDataAccessExpired(at now: Date) -> Bool { now >= dataAccessExpiresAt }

    /// The expiry for a login at `lastLoginAt`, before its grant is stored (the dialog's answer, the device flow).
    package static func dataAccessExpiry(lastLoginAt: Date) -> Date {
        lastLoginAt.addingTimeInterval(Lifetimes.dataAccess)
    }
}
