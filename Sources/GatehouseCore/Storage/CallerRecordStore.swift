import Foundation

/// Everything one token stands for, read in one statement: the resolved caller's cache-miss path.
package protocol CallerRecordStore: Sendable {
    /// The token with this hash and, where they exist, its app, person (picture bytes left out, presence kept
    /// as an empty value), grant and app-scoped id; nil when no token has the hash.
    func callerRecords(tokenHash: String) async throws -> CallerRecords?
}

/// The rows behind one token, any of which but the token may be missing.
package struct CallerRecords: Sendable {
    package var token: TokenRecord
    package var app: AppRecord?
    package var user: UserRecord?
    package var grant: GrantRecord?
    package var scopedID: String?

    package init(
        token: TokenRecord, app: AppRecord? = nil, user: UserRecord? = nil, grant: GrantRecord? = nil,
        scopedID: String? = nil
    ) {
        self.token = token
        self.app = app
        self.user = user
        self.grant = grant
        self.scopedID = scopedID
    }
}
