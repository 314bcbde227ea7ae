import Foundation

/// A person allowed into the developer console in production mode (not a Gatehouse user: admins are
/// operators, created only with `gatehouse admin create`).
public struct AdminAccountRecord: Sendable, Codable, Equatable {
    public var id: String
    public var email: String
    /// bcrypt hash; the password itself is never stored or logged.
    public var passwordHash: String
    public var createdAt: Date

    public init(id: String, email: String, passwordHash: String, createdAt: Date) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// A logged-in console browser. Only the SHA-256 of the cookie secret is stored.
public struct AdminSessionRecord: Sendable, Codable, Equatable {
    public var id: String
    public var secretHash: String
    public var adminID: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, secretHash: String, adminID: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.secretHash = secretHash
        self.adminID = adminID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Console administrators and their sessions (migration 4).
public protocol AdminStore: Sendable {
    /// Throws `StorageError.conflict("email")` when the email (case-insensitive) is taken.
    func create(_ admin: AdminAccountRecord) async throws
    /// Case-insensitive.
    func find(email: String) async throws -> AdminAccountRecord?
    func find(id: String) async throws -> AdminAccountRecord?
    /// Oldest first.
    func list() async throws -> [AdminAccountRecord]
    /// Replaces the password hash and ends the admin's sessions.
    func setPassword(adminID: String, passwordHash: String) async throws
    func insertSession(_ session: AdminSessionRecord) async throws
    func findSession(secretHash: String) async throws -> AdminSessionRecord?
    func deleteSession(id: String) async throws
}

/// Fixed-window counters shared by every node on the database: password attempts, API calls.
///
/// Keys are opaque strings chosen by ``RateLimiter`` (`login:acct:<email>`, `api:app:<id>` …); a window is
/// identified by its start in unix seconds, so counters of different nodes with the same clock agree.
public protocol RateLimitStore: Sendable {
    /// Adds `amount` to the counter for (`key`, `windowStart`) and returns the new total. Atomic across nodes.
    func increment(key: String, windowStart: Int64, amount: Int, expiresAt: Date) async throws -> Int
    /// The counter's current total (0 when absent).
    func count(key: String, windowStart: Int64) async throws -> Int
    /// Forgets every window of `key` (a successful login clears its account's failures).
    func reset(key: String) async throws
    /// Deletes counters whose window ended before `now`; returns how many.
    @discardableResult func purge(expiredBefore now: Date) async throws -> Int
}
