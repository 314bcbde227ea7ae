import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The one check behind every admin API route (`/admin/api/v1/…` and the older `/admin/api/…`).
///
/// - Development mode: open, as the console is (``DevelopmentHostGuard`` keeps it to loopback); credentials,
///   when sent and valid, only name the actor in the audit log.
/// - Production mode: an `Authorization: Bearer gha_…` admin token or a console administrator's session cookie,
///   nothing else: none (or a wrong one) is `401`, a read-only token on anything but GET/HEAD is `403`.
///
/// A request that sends an `Authorization` header is judged by it alone: a bad token is refused even beside a
/// good cookie, so a client never acts as someone it did not mean to be.
package struct AdminAuthorization: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// The outcome of ``decide(_:)``.
    package enum Decision: Sendable, Equatable {
        case allowed(AdminActor)
        /// No usable credentials (401).
        case unauthorized(String)
        /// Valid credentials that may not do this (403).
        case forbidden(String)
    }

    /// Why a request without any credentials is refused.
    static let noCredentials = "send an admin token (Authorization: Bearer gha_…) or log in at /console/login"

    /// Whether the request may go on, and as whom.
    package func decide(_ request: Request) async -> Decision {
        let found: AdminActor?
        do {
            found = try await actor(request)
        } catch {
            // A storage failure must not open the API: refuse, and let the client retry.
            services.logger.warning("admin credentials could not be checked", metadata: ["error": "\(type(of: error))"])
            found = nil
            if services.configuration.isProduction {
                return .unauthorized("the credentials could not be checked; try again")
            }
        }
        if services.configuration.isDevelopment { return .allowed(found ?? .development) }
        guard let actor = found else {
            return .unauthorized(
                request.headers[.authorization] == nil ? Self.noCredentials : "the admin token is unknown or revoked")
        }
        if !actor.mayWrite, !Self.isRead(request.method) {
            return .forbidden("this admin token is read-only")
        }
        return .allowed(actor)
    }

    /// The actor the request's credentials name, or nil when it sends none or they are not valid.
    package func actor(_ request: Request) async throws -> AdminActor? {
        if let header = request.headers[.authorization] {
            guard let token = Self.bearer(header) else { return nil }
            return try await AdminTokens(services: services).authenticate(token).map(AdminActor.token)
        }
        return try await AdminAccounts(services: services).current(request).map {
            .administrator(id: $0.id, email: $0.email)
        }
    }

    /// The token in `Bearer <token>` (scheme case-insensitive), or nil.
    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// GET, HEAD and OPTIONS change nothing; everything else is a write.
    static func isRead(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }
}

extension AdminAuthorization.Decision {
    /// Whether the request may go on.
    package var isAllowed: Bool {
        if case .allowed = self { return true }
        return false
    }

    /// The v1 API's problem for a refusal (401 `unauthorized`, 403 `forbidden`), nil when allowed.
    var problem: Problem? {
        switch self {
        case .allowed: nil
        case .unauthorized(let detail): Problem(.unauthorized, detail)
        case .forbidden(let detail): Problem(.forbidden, detail)
        }
    }

    /// The Graph-shaped answer for `/admin/…` paths outside v1, nil when allowed.
    func graphResponse(version: String) -> Response? {
        switch self {
        case .allowed: nil
        case .unauthorized(let detail):
            // Without credentials, the wording these routes have always had.
            GraphHTTPAdapter.response(
                .error(detail == AdminAuthorization.noCredentials ? .adminSessionRequired : .adminTokenUnknown),
                version: version)
        case .forbidden(let detail):
            GraphHTTPAdapter.response(.error(.adminForbidden(detail)), version: version)
        }
    }
}
