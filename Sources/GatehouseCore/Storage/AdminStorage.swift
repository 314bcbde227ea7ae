import Foundation

/// A person allowed into the developer console in production mode (not a Gatehouse user: admins are
/// operators, created only with `gatehouse admin create`).
package struct AdminAccountRecord: Sendable, Codable, Equatable {
    package var id: String
    package var email: String
    /// bcrypt hash; the password itself is never stored or logged.
    package var passwordHash: String
    package var createdAt: Date

    package init(id: String, email: String, passwordHash: String, createdAt: Date) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// A logged-in console browser. Only the SHA-256 of the cookie secret is stored.
package struct AdminSessionRecord: Sendable, Codable, Equatable {
    package var id: String
    package var secretHash: String
    package var adminID: String
    package var createdAt: Date
    package var expiresAt: Date

    package init(id: String, secretHash: String, adminID: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.secretHash = secretHash
        self.adminID = adminID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Console administrators and their sessions (migration 4), their API tokens and the audit log (migration 11).
package protocol AdminStore: AdminTokenStore {
    /// Throws `StorageError.conflict("email")` when the email (case-insensitive) is taken.
    func create(_ admin: AdminAccountRecord) async throws
    /// Case-insensitive.
    func find(email: String) async throws -> AdminAccountRecord?
    func find(id: String) async throws -> AdminAccountRecord?
    /// Oldest first.
    func list() async throws -> [AdminAccountRecord]
    func insertSession(_ session: AdminSessionRecord) async throws
    func findSession(secretHash: String) async throws -> AdminSessionRecord?
    func deleteSession(id: String) async throws
}
