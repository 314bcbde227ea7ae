import GatehouseCore
import Foundation
import Hummingbird

/// The console's admin page: admin API tokens (listed, made — the value shown once, on the page that made it —
/// and revoked) and the latest entries of the audit log. Forms are CSRF-checked like every console form.
struct ConsoleAdminTokens: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }
    /// Audit entries shown on the page; the rest through `GET /admin/api/v1/audit`.
    static let auditShown = 50

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.adminTokens), use: show)
        router.post(RouterPath(PagePath.Console.adminTokens), use: create)
        router.post(RouterPath(PagePath.Console.adminTokenRevoke), use: revoke)
    }

    /// `GET /console/admin-tokens`.
    @Sendable func show(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-admin-tokens", title: "Admin tokens and audit log", nav: "admin") {
            try await values()
        }
    }

    /// `POST /console/admin-tokens` (`name`, `read_only`): answers the page itself, with the new token shown this
    /// once (a redirect would have to carry it in a URL).
    @Sendable func create(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        guard await console.access.allows(request) else { return console.denied() }
        let form: FormBody
        switch await console.forms.requireCSRF(request, limit: 4096) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let created: AdminTokens.Created
        do {
            created = try await AdminTokens(services: services).create(
                name: form["name"] ?? "", readOnly: form["read_only"] == "on")
        } catch let error as AccountError {
            return try await console.refused(request, error.description)
        }
        return try await console.page(
            request, "console-admin-tokens", title: "Admin tokens and audit log", nav: "admin"
        ) {
            var all = try await values()
            all["createdToken"] = created.token
            all["createdName"] = created.record.name
            return all
        }
    }

    /// `POST /console/admin-tokens/:id/revoke`.
    @Sendable func revoke(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            guard try await AdminTokens(services: services).revoke(id: context.parameters.get("id") ?? "") else {
                throw ConsoleInputError("That admin token is unknown or already revoked.")
            }
            return PagePath.notice(PagePath.Console.adminTokens, "revoked")
        }
    }

    private func values() async throws -> [String: Any] {
        let tokens = try await AdminTokens(services: services).list().map { token -> [String: Any] in
            [
                "id": token.id, "name": token.name, "prefix": token.displayPrefix, "readOnly": token.readOnly,
                "created": ConsoleController.timestamp(token.createdAt),
                "revoked": token.revokedAt.map(ConsoleController.timestamp) ?? "",
            ]
        }
        let audit = try await AuditLog(services: services).page(before: nil, limit: Self.auditShown).map {
            entry -> [String: Any] in
            [
                "time": ConsoleController.timestamp(entry.time), "who": entry.actorName ?? entry.actorKind,
                "kind": entry.actorKind, "method": entry.method, "route": entry.route, "target": entry.target ?? "",
                "status": entry.status,
            ]
        }
        return ["adminTokens": tokens, "audit": audit]
    }
}
