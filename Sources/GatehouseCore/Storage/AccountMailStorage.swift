import Foundation

/// One message in the mail outbox (issue 32): what the sign-up, confirmation and password-reset flows send.
///
/// Every message is a row first; the outbox worker delivers it (production: a sendmail-compatible command) and
/// retries with back-off, so a slow or broken mail server never holds up the request that caused the message.
/// In development the rows are what `/console/mail` and `GET /admin/api/v1/mail` show.
package struct MailMessageRecord: Sendable, Codable, Equatable {
    package var id: String
    /// What the message is for: `confirm_email`, `reset_password`, `invitation`.
    package var kind: String
    /// The person it is about, when there is one (an invitation has none yet).
    package var userID: String?
    package var to: String
    package var subject: String
    /// The plain-text part. Emptied once a production delivery succeeds, so links do not linger in the database.
    package var text: String
    /// The HTML part, likewise.
    package var html: String
    package var createdAt: Date
    package var attempts: Int
    /// When the next attempt is due; nil once delivered, given up, or kept only (development).
    package var nextAttemptAt: Date?
    package var deliveredAt: Date?
    package var gaveUpAt: Date?
    /// Why the last attempt failed (the command's exit status and first line of its error output).
    package var lastError: String?

    package init(
        id: String, kind: String, userID: String?, to: String, subject: String, text: String, html: String,
        createdAt: Date,
        attempts: Int = 0, nextAttemptAt: Date?, deliveredAt: Date? = nil, gaveUpAt: Date? = nil,
        lastError: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.userID = userID
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
        self.gaveUpAt = gaveUpAt
        self.lastError = lastError
    }
}

/// The persistent mail outbox (table `mail_messages`): the shared outbox operations, and what the console, the
/// admin API and retention do with mail.
package protocol MailOutboxStore: OutboxStore where Item == MailMessageRecord {
    /// Newest first; `to` (compared case-insensitively) narrows to one recipient.
    func list(to: String?, limit: Int) async throws -> [MailMessageRecord]
    /// Returns false when there was no such message.
    func delete(id: String) async throws -> Bool
    /// Deletes every message; returns how many there were.
    @discardableResult func deleteAll() async throws -> Int
    /// Deletes the messages for a person or to their address (compared case-insensitively): a deleted account
    /// leaves no mail behind. Returns how many there were.
    @discardableResult func deleteAll(userID: String, address: String) async throws -> Int
    /// Deletes the messages created before `cutoff` that are not waiting for another attempt (retention).
    @discardableResult func prune(createdBefore cutoff: Date) async throws -> Int
}

/// What a single-use account code (the link or code in a mail) is for.
package enum AccountCodePurpose: String, Sendable, Codable, CaseIterable {
    /// Confirms a new account's email (unconfirmed → active).
    case confirmEmail = "confirm_email"
    /// Sets a new password ("Forgotten password?").
    case resetPassword = "reset_password"
    /// Lets one email address sign up while sign-up is by invitation.
    case invitation
}

/// A single-use, expiring code sent by mail. Only its SHA-256 is stored; the code itself is only in the mail.
package struct AccountCodeRecord: Sendable, Codable, Equatable {
    package var codeHash: String
    package var purpose: AccountCodePurpose
    /// The person it acts for; nil for an invitation.
    package var userID: String?
    /// The (normalised) address it was sent to.
    package var email: String
    package var createdAt: Date
    package var expiresAt: Date
    package var usedAt: Date?

    package init(
        codeHash: String, purpose: AccountCodePurpose, userID: String?, email: String, createdAt: Date, expiresAt: Date,
        usedAt: Date? = nil
    ) {
        self.codeHash = codeHash
        self.purpose = purpose
        self.userID = userID
        self.email = email
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// Single-use account codes (table `account_codes`).
package protocol AccountCodeStore: Sendable {
    func insert(_ code: AccountCodeRecord) async throws
    func find(codeHash: String) async throws -> AccountCodeRecord?
    /// Marks the code used at `at` if it is unused, of `purpose` and unexpired; returns the record as consumed
    /// (`usedAt` set), or nil. Atomic: of two concurrent calls at most one gets the record.
    func consume(codeHash: String, purpose: AccountCodePurpose, at: Date) async throws -> AccountCodeRecord?
    /// Ends every unused code of one person and purpose (a new reset link replaces the old ones; a completed
    /// reset ends the rest).
    func expireAll(userID: String, purpose: AccountCodePurpose, at: Date) async throws
    /// Every code, newest first (the console and tests; hashes only).
    func list(limit: Int) async throws -> [AccountCodeRecord]
    /// Deletes the codes that expired, or were used, before `cutoff` (retention). Returns how many there were.
    @discardableResult func prune(before cutoff: Date) async throws -> Int
}

extension AccountCodeStore {
    /// Ends every unused code of one person, whatever it is for: a new password or address voids the links sent
    /// before it.
    package func expireAll(userID: String, at: Date) async throws {
        for purpose in AccountCodePurpose.allCases { try await expireAll(userID: userID, purpose: purpose, at: at) }
    }
}
