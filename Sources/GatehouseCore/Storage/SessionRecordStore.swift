import Foundation

/// A browser session with what the login dialog decides from, read in one statement: the dialog's and consent's
/// reads before their transaction.
package protocol SessionRecordStore: Sendable {
    /// The session with this secret hash, its person (nil when gone), and that person's grant, role and
    /// app-scoped id on `appID`; nil when no session has the hash. Nothing is checked here: expiry and a changed password are the
    /// caller's rules.
    func sessionRecords(secretHash: String, appID: String) async throws -> SessionRecords?
}

/// The rows behind one browser session for one app.
package struct SessionRecords: Sendable {
    package var session: BrowserSessionRecord
    package var user: UserRecord?
    package var grant: GrantRecord?
    package var role: AppRole?
    /// The person's app-scoped id, nil until one is made on their first login to the app.
    package var scopedID: String?

    package init(
        session: BrowserSessionRecord, user: UserRecord? = nil, grant: GrantRecord? = nil, role: AppRole? = nil,
        scopedID: String? = nil
    ) {
        self.session = session
        self.user = user
        self.grant = grant
        self.role = role
        self.scopedID = scopedID
    }
}
