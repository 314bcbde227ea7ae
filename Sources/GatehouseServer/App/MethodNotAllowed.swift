import Hummingbird
import HTTPTypes

/// `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6) for a method a path does not have, on every path
/// registered before it: the pages, the dialog, the console, the admin API, ops and OIDC.
///
/// Hummingbird answers a known path asked with another method as it answers an unknown one (404); these are
/// ordinary routes instead, registered for each method a path lacks, so a 405 passes the same middlewares
/// (the admin gate, the journal, the metrics) as any answer. The Graph API's routes are registered after,
/// so it keeps Facebook's own answers ("Unsupported put request", code 100, subcode 33), and so do the retired
/// admin routes, which answer only their old methods (``RetiredAdminRoutes``).
enum MethodNotAllowed {
    /// The methods asked of each path: the ones the admin API's contract test probes (schemathesis's unexpected
    /// methods), HEAD aside, which ``HeadAsGetResponder`` answers wherever GET is.
    static let probed: [HTTPRequest.Method] = [
        .get, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!,
    ]

    /// `Allow`'s order: the common methods first, as clients list them.
    static let order: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    /// Adds a 405 route for each method in ``probed`` that a path registered so far does not have.
    /// - Returns: the routes added, as `METHOD /path` (``GatehouseRouter/routes`` leaves them out).
    @discardableResult
    static func register(on router: Router<GatehouseRequestContext>, pages: PageRenderer) -> Set<String> {
        var added: Set<String> = []
        var paths: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in router.routes {
            paths[route.path.description, default: (route.path, [])].methods.insert(route.method)
        }
        for (name, entry) in paths.sorted(by: { $0.key < $1.key }) where !RetiredAdminRoutes.isRetired(name) {
            let allow = allowValue(entry.methods)
            let isAdminAPI = name == "/admin/api/v1" || name.hasPrefix("/admin/api/v1/")
            for method in probed where !entry.methods.contains(method) {
                router.on(entry.path, method: method) { request, context in
                    answer(context.method(of: request), allow: allow, adminAPI: isAdminAPI, pages: pages)
                }
                added.insert(key(method, entry.path))
            }
        }
        return added
    }

    /// A route's name in the set ``register(on:pages:)`` returns.
    static func key(_ method: HTTPRequest.Method, _ path: RouterPath) -> String { "\(method.rawValue) \(path)" }

    /// `Allow`'s value for a path with `methods`: HEAD wherever GET is.
    static func allowValue(_ methods: Set<HTTPRequest.Method>) -> String {
        var allowed = methods
        if allowed.contains(.get) { allowed.insert(.head) }
        let known = order.filter(allowed.contains)
        let others = allowed.subtracting(order).map(\.rawValue).sorted()
        return (known.map(\.rawValue) + others).joined(separator: ", ")
    }

    /// The admin API's problem document, or the plain error page, with `Allow`.
    static func answer(
        _ method: HTTPRequest.Method, allow: String, adminAPI: Bool, pages: PageRenderer
    ) -> Response {
        let detail = "This path does not answer \(method.rawValue); it answers \(allow)."
        var response =
            adminAPI
            ? Problem(.methodNotAllowed, detail).response
            : pages.errorPage(.methodNotAllowed, headline: "Method Not Allowed", detail: detail)
        response.headers[.allow] = allow
        return response
    }
}
