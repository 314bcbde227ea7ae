import GatehouseCore
import Foundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The JSON admin API from before `/admin/api/v1`, retired (issue 40). It was documented, so clients outside the
/// project may still call it: every path answers each method it had with `410 Gone`, naming its v1 replacement in
/// the body and in a `Link: <…>; rel="successor-version"` header, and does nothing else.
///
/// No credentials are asked for (``AdminGate`` lets these paths through): the answer is the same for everyone
/// and says nothing about the server.
enum RetiredAdminRoutes {
    /// One retired route and the v1 route that replaces it.
    struct Route: Sendable, Equatable {
        var method: HTTPRequest.Method
        /// Under `/admin/api/`, as it was registered (`injections/:id`).
        var path: String
        var replacement: HTTPRequest.Method
        /// Under `/admin/api/v1`; `:name` takes the request's value of the same parameter.
        var successor: String
    }

    /// Old → new, the one list of them.
    static let table: [Route] = [
        Route(method: .get, path: "clock", replacement: .get, successor: "/clock"),
        Route(method: .post, path: "clock/advance", replacement: .post, successor: "/clock/advance"),
        Route(method: .post, path: "clock/reset", replacement: .post, successor: "/clock/reset"),
        Route(method: .get, path: "injections", replacement: .get, successor: "/injections"),
        Route(method: .post, path: "injections", replacement: .post, successor: "/injections"),
        Route(method: .delete, path: "injections", replacement: .delete, successor: "/injections"),
        Route(method: .delete, path: "injections/:id", replacement: .delete, successor: "/injections/:id"),
        Route(method: .get, path: "export", replacement: .get, successor: "/state"),
        Route(method: .post, path: "import", replacement: .put, successor: "/state"),
        Route(method: .get, path: "journal", replacement: .get, successor: "/journal"),
        Route(method: .get, path: "journal/:seq", replacement: .get, successor: "/journal/:seq"),
        Route(method: .post, path: "scenario", replacement: .post, successor: "/scenario"),
    ]

    static let prefix = "/admin/api/"
    static let link = HTTPField.Name("Link")!

    /// Whether `path` (normalized) is one of the retired paths, whatever the method.
    static func isRetired(_ path: String) -> Bool {
        guard path.hasPrefix(prefix) else { return false }
        let segments = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        return table.contains { route in
            let pattern = route.path.split(separator: "/")
            return pattern.count == segments.count
                && zip(pattern, segments).allSatisfy { $0.hasPrefix(":") ? !$1.isEmpty : $0 == $1 }
        }
    }

    static func register(on router: Router<GatehouseRequestContext>) {
        for route in table {
            router.on(RouterPath(prefix + route.path), method: route.method) { _, context in
                gone(route, context)
            }
        }
    }

    /// `410 Gone`, e.g. `{"error":{"message":"Gone: use GET /admin/api/v1/clock","type":"GatehouseAdminException",
    /// "code":410},"replacement":"/admin/api/v1/clock"}`.
    static func gone(_ route: Route, _ context: GatehouseRequestContext) -> Response {
        let successor = successor(route, context)
        let body: JSONValue = [
            "error": [
                "message": .string("Gone: use \(route.replacement.rawValue) \(successor)"),
                "type": "GatehouseAdminException", "code": 410,
            ],
            "replacement": .string(successor),
        ]
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.cacheControl] = "no-store"
        headers[link] = "<\(successor)>; rel=\"successor-version\""
        return Response(status: .gone, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body.serialized())))
    }

    /// The replacing path, `:name` segments filled from the request (only the characters a segment may carry, as
    /// it goes into a header).
    static func successor(_ route: Route, _ context: GatehouseRequestContext) -> String {
        let allowed = CharacterSet.alphanumerics.union(.init(charactersIn: "-._~"))
        let segments = route.successor.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix(":") else { return String(segment) }
            let value = context.parameters.get(String(segment.dropFirst())) ?? ""
            return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        }
        return "/admin/api/v1" + segments.joined(separator: "/")
    }
}
