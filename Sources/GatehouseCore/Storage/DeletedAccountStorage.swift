import Foundation

/// What is left of a deleted account (issue 32): the hashes of its tokens and of its email address, so that an old
/// token answers as a deleted person's token does and the journal can say why a login with the old address was
/// refused. Nothing of the person is kept: no name, no id of theirs, no address in the clear. Each row is
/// forgotten once it could no longer matter (a token's own expiry; the address after ``addressKeptFor``).
package struct DeletedAccountRecord: Sendable, Equatable {
    /// `token:` + the token's SHA-256 (hex, as `tokens.token_hash`), or `email:` + the SHA-256 of the
    /// normalised address.
    package var key: String
    /// The app a token was issued to (nil for the address).
    package var appID: String?
    package var deletedAt: Date
    /// When the row is dropped.
    package var forgetAt: Date

    package init(key: String, appID: String?, deletedAt: Date, forgetAt: Date) {
        self.key = key
        self.appID = appID
        self.deletedAt = deletedAt
        self.forgetAt = forgetAt
    }

    /// How long a deleted account's address is remembered (Facebook's 30 days before deletion is final).
    package static let addressKeptFor: TimeInterval = 30 * 86_400

    package static func tokenKey(tokenHash: String) -> String { "token:" + tokenHash }
    package static func emailKey(_ normalisedEmail: String) -> String {
        "email:" + SecretHash.sha256Hex(normalisedEmail)
    }
}

/// The deleted accounts' leftovers (table `deleted_accounts`, migration 18).
package protocol DeletedAccountStore: Sendable {
    /// Stores the rows; a key already stored keeps its first row.
    func remember(_ records: [DeletedAccountRecord]) async throws
    /// The row for `key`, unless it is past its `forgetAt` at `now`.
    func find(key: String, now: Date) async throws -> DeletedAccountRecord?
    /// Drops the rows past their `forgetAt`; returns how many.
    @discardableResult
    func forget(before: Date) async throws -> Int
}
