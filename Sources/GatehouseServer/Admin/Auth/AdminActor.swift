import GatehouseCore
import Foundation

/// Who is acting on the admin API or the console: what the authorisation check found and the audit log records.
package enum AdminActor: Sendable, Equatable {
    /// Development mode, no credentials: the console and the API are open on loopback.
    case development
    /// A console administrator's session cookie.
    case administrator(id: String, email: String)
    /// An admin API token (`Authorization: Bearer gha_…`).
    case token(AdminTokenRecord)
    /// `gatehouse … --data-dir` on the server's own disk.
    case cli

    /// Whether this actor may change anything: everyone but a read-only token.
    package var mayWrite: Bool {
        if case .token(let token) = self { return !token.readOnly }
        return true
    }

    /// Whether this actor may read the secrets that allow writing: app secrets and client tokens, the whole-state
    /// export (password and token hashes, signing keys) and mail bodies (reset and confirmation links). A
    /// read-only token is for dashboards and CI checks; reading any of these would hand it write access.
    package var maySeeSecrets: Bool { mayWrite }

    /// The audit log's `actor_kind`.
    package var kind: String {
        switch self {
        case .development: "development"
        case .administrator: "administrator"
        case .token: "token"
        case .cli: "cli"
        }
    }

    /// The administrator's or the token's id.
    package var id: String? {
        switch self {
        case .administrator(let id, _): id
        case .token(let token): token.id
        case .development, .cli: nil
        }
    }

    /// The administrator's email or the token's name.
    package var name: String? {
        switch self {
        case .administrator(_, let email): email
        case .token(let token): token.name
        case .development, .cli: nil
        }
    }
}
