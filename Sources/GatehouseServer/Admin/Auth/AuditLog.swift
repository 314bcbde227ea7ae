import GatehouseCore
import Foundation
import Hummingbird
import Logging

/// The audit log: every change made through the admin API or the console, with who made it and when.
package struct AuditLog: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// Records one change: its audit row and, for a write, its `admin.write` event, in one commit. A failure to
    /// record is logged and does not undo the change it describes.
    package func record(actor: AdminActor, method: String, route: String, target: String?, status: Int) async {
        let entry = AuditEntryRecord(
            time: services.clock.now(), actorKind: actor.kind, actorID: actor.id, actorName: actor.name,
            method: method, route: String(route.prefix(300)), target: target.map { String($0.prefix(200)) },
            status: status)
        // Every admin write is also an event (issue 42); an audited read of a secret is not.
        var event: [String: String]?
        if !AdminAuthorization.isRead(HTTPRequest.Method(method) ?? .get) {
            var details = [
                "method": method, "route": entry.route, "status": "\(status)", "actor_kind": actor.kind,
            ]
            if let name = actor.name { details["actor"] = name }
            if let target = entry.target { details["target"] = target }
            event = details
        }
        do {
            let storage = services.storage
            guard storage.writes?.storesEventsInTransaction == true else {
                // Each its own commit: cheaper on PostgreSQL than a transaction (see `storesEventsInTransaction`).
                if let event { await services.events.record(.adminWrite, event) }
                return try await storage.admins.appendAudit(entry)
            }
            try await storage.transaction { [event] tx in
                if let event { try await tx.events.record(.adminWrite, event) }
                try await tx.admins.appendAudit(entry)
            }
        } catch {
            services.logger.error(
                "audit entry could not be stored", metadata: ["route": "\(entry.route)", "error": "\(type(of: error))"])
        }
    }

    /// Newest first, `limit` entries below the sequence `before`.
    package func page(before: Int64?, limit: Int) async throws -> [AuditEntryRecord] {
        try await services.storage.admins.audit(before: before, limit: limit)
    }
}
