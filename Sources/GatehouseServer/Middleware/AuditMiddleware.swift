import GatehouseCore
import Foundation
import Hummingbird
import Logging

/// Records each successful write (POST, PUT, PATCH, DELETE answered below 400) to `/admin/…` and `/console/…`
/// in the ``AuditLog``, naming the route as registered and the id its path names.
///
/// Added after ``AdminGate`` in both modes: in production a refused request never reaches it, and in
/// development the actor is `development` unless the request carries credentials.
package struct AuditMiddleware: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// Not changes: logging in (no one is known yet) and reading.
    static func isAudited(path: String, method: HTTPRequest.Method) -> Bool {
        guard !AdminAuthorization.isRead(method) else { return false }
        guard path.hasPrefix("/admin/") || path.hasPrefix(PagePath.Console.home) else { return false }
        return !AdminGate.openPaths.contains(path)
    }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        // Reads (every Graph call but a few) pass on before the path is even looked at.
        guard !AdminAuthorization.isRead(request.method) else { return try await next(request, context) }
        let path = AdminGate.isNormal(request.uri.path) ? request.uri.path : AdminGate.normalized(request.uri.path)
        guard Self.isAudited(path: path, method: request.method) else { return try await next(request, context) }
        // Resolved before the change, so revoking the token a request is sent with still names it.
        let actor = (try? await AdminAuthorization(services: services).actor(request)) ?? .development
        let response = try await next(request, context)
        guard response.status.code < 400 else { return response }
        await AuditLog(services: services).record(
            actor: actor, method: request.method.rawValue, route: Self.route(context, path: path),
            target: Self.target(context), status: response.status.code)
        return response
    }

    /// `/admin/api/v1/apps/{id}`: the registered route with `:id` written as `{id}`, or the path when unrouted.
    static func route(_ context: Context, path: String) -> String {
        guard let endpoint = context.endpointPath else { return path }
        let segments = endpoint.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
        return "/" + segments.joined(separator: "/")
    }

    /// The path's parameter values (`id`, or `app_id/person_id`), nil when it names none.
    static func target(_ context: Context) -> String? {
        let values = context.parameters.map { String($0.value) }
        return values.isEmpty ? nil : values.joined(separator: "/")
    }
}
