import Foundation
import GatehouseCore
import Hummingbird

/// Reads of what allows writing (issue 39, finding 1): app secrets and client tokens, the whole-state export
/// (password and token hashes, signing keys) and mail bodies (reset and confirmation links).
///
/// A read-only admin token is for dashboards and CI checks, so it is never shown them: app objects come without
/// `secret` and `client_token`, mail without its bodies and links, and the state export answers 403. Everyone
/// else may read them, and in production each such read is recorded in the audit log beside the writes (in
/// development the API is open on loopback, so a record of reads would say nothing).
package struct SecretReads: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// Why a read-only token is refused what only secrets make up.
    static let refusal = "a read-only admin token cannot read this: it holds secrets that allow writing"

    /// Whether `actor` may be shown the secrets; when it may, production records the read.
    func allowed(_ actor: AdminActor, route: String, target: String?) async -> Bool {
        guard actor.maySeeSecrets else { return false }
        if services.configuration.isProduction {
            await AuditLog(services: services).record(
                actor: actor, method: "GET", route: route, target: target, status: 200)
        }
        return true
    }
}

extension V1Call {
    /// Whether this call may be shown secrets (and, when it may, the read is audited in production).
    func mayReadSecrets() async -> Bool {
        await SecretReads(services: services).allowed(
            actor, route: AuditMiddleware.route(context, path: request.uri.path),
            target: AuditMiddleware.target(context))
    }

    /// Refuses a read-only token with 403; audits the read for anyone else in production.
    func requireSecretReads() async throws {
        guard await mayReadSecrets() else { throw Problem(.forbidden, SecretReads.refusal) }
    }
}
