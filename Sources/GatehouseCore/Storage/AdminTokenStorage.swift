import Foundation

/// A credential for the admin API (`Authorization: Bearer gha_…`), made with `gatehouse admin token create` or
/// the console. Only the SHA-256 of the token is stored; the token itself is shown once, when it is made.
package struct AdminTokenRecord: Sendable, Codable, Equatable {
    package var id: String
    /// What the operator called it (`ci`, `nightly`): shown in lists and in the audit log.
    package var name: String
    /// The token's first characters (`gha_AbCd1234`), enough to recognise it in a list, too few to use it.
    package var displayPrefix: String
    /// Lowercase hex SHA-256 of the whole token.
    package var tokenHash: String
    /// A read-only token may call GET routes only; any write is refused with 403.
    package var readOnly: Bool
    package var createdAt: Date
    /// Set once, when the token is revoked; a revoked token is refused like an unknown one.
    package var revokedAt: Date?

    package init(
        id: String, name: String, displayPrefix: String, tokenHash: String, readOnly: Bool, createdAt: Date,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.displayPrefix = displayPrefix
        self.tokenHash = tokenHash
        self.readOnly = readOnly
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// One change made through the admin API or the console: who made it, what, and when.
package struct AuditEntryRecord: Sendable, Codable, Equatable {
    /// Ascending, assigned by the store; 0 before the entry is stored.
    package var sequence: Int64
    package var time: Date
    /// `administrator`, `token`, `development` (no credentials, open loopback) or `cli` (`--data-dir`).
    package var actorKind: String
    /// The administrator's or the token's id.
    package var actorID: String?
    /// The administrator's email or the token's name.
    package var actorName: String?
    /// `POST`, `PATCH`, `PUT`, `DELETE`.
    package var method: String
    /// The route as registered (`/admin/api/v1/apps/{id}`), never the raw path with its query.
    package var route: String
    /// The id the route acted on, when the path names one.
    package var target: String?
    /// The HTTP status answered.
    package var status: Int

    package init(
        sequence: Int64 = 0, time: Date, actorKind: String, actorID: String?, actorName: String?, method: String,
        route: String, target: String?, status: Int
    ) {
        self.sequence = sequence
        self.time = time
        self.actorKind = actorKind
        self.actorID = actorID
        self.actorName = actorName
        self.method = method
        self.route = route
        self.target = target
        self.status = status
    }
}

/// Admin API tokens and the audit log (migration 11), kept beside the administrators they stand in for.
package protocol AdminTokenStore: Sendable {
    /// Throws `StorageError.conflict` when the id or hash is taken.
    func insertToken(_ token: AdminTokenRecord) async throws
    /// The token with this hash, revoked or not.
    func findToken(hash: String) async throws -> AdminTokenRecord?
    /// Every token, revoked ones included, oldest first.
    func listTokens() async throws -> [AdminTokenRecord]
    /// Marks the token revoked; false when there is no such token or it was already revoked.
    func revokeToken(id: String, at time: Date) async throws -> Bool
    /// Appends an entry; its `sequence` is assigned by the store.
    func appendAudit(_ entry: AuditEntryRecord) async throws
    /// Newest first: up to `limit` entries with a sequence below `before` (all, when nil).
    func audit(before: Int64?, limit: Int) async throws -> [AuditEntryRecord]
}
