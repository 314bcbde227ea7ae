import GatehouseCore
import Foundation
import HTTPTypes
import Hummingbird
import Tracing

/// One server span per request, as OpenTelemetry's HTTP semantic conventions name and describe it, with what
/// Gatehouse knows of the request: the app it names, its outcome and, for a refusal, the journal's reason.
///
/// Installed only when the server has a tracer (``GatehouseServices/tracer``), right inside the journal, so
/// the span reads the journal's own note (``JournalNote/traceFacts(status:route:)``) and its status is the one
/// the client got. With the journal off it binds a note of its own for the handlers to fill. The route label is
/// the metrics' (``RouteMetricHandles``), worked out once per route.
///
/// A `traceparent` (and its `tracestate`) is continued only from a trusted proxy (`trusted_proxies`); anyone
/// else starts a new trace, so a client cannot attach its requests to someone else's trace. The query string,
/// headers other than `User-Agent`, cookies and bodies never reach an attribute: that is where tokens, codes,
/// secrets and passwords travel.
package struct RequestTracingMiddleware: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let tracer: any Tracer
    let trusted: [IPRange]
    let routes: RouteMetricHandles
    /// `server.address` and `server.port`: the public URL's, the name clients are told to use.
    let serverAddress: String?
    let serverPort: Int?

    package init(tracer: any Tracer, configuration: GatehouseConfiguration, routes: RouteMetricHandles) {
        self.tracer = tracer
        self.trusted = configuration.trustedProxies.compactMap(IPRange.init)
        self.routes = routes
        let url = URLComponents(string: configuration.baseURL)
        self.serverAddress = url?.host
        self.serverPort = url?.port ?? (url?.scheme == "https" ? 443 : 80)
    }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let method = context.method(of: request)
        let route = routes.label(path: request.uri.path, endpoint: context.coreContext.endpointPath.value)
        let span = tracer.startSpan(
            "\(method.rawValue) \(route)", context: parent(of: request, context), ofKind: .server)
        // The path as the journal's entry has it (no query): `url.path`, and the reason for a 404 names it.
        let path = String(request.uri.path.prefix(JournalEntry.routeCharacters))
        describe(span, request: request, context: context, method: method, route: route, path: path)
        let note = JournalNote.current ?? JournalNote()
        do {
            // The tracer is also the task's, so spans made below without it in hand (the stores' statements)
            // join this trace.
            let response = try await withTracer(tracer) {
                try await InstrumentationContext.$current.withValue(span.context) {
                    try await JournalNote.$current.withValue(note) { try await next(request, context) }
                }
            }
            finish(span, status: Int(response.status.code), note: note, path: path)
            return response
        } catch {
            finish(span, status: Int((error as? any HTTPResponseError)?.status.code ?? 500), note: note, path: path)
            throw error
        }
    }

    /// The trace a trusted proxy says the request belongs to; a new one for anyone else.
    func parent(of request: Request, _ context: Context) -> InstrumentationContext {
        var parent = InstrumentationContext.topLevel
        guard let peer = context.remoteAddress?.ipAddress, trusted.contains(where: { $0.contains(peer) }) else {
            return parent
        }
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        return parent
    }

    private func describe(
        _ span: any Span, request: Request, context: Context, method: HTTPRequest.Method, route: String, path: String
    ) {
        span.updateAttributes { attributes in
            attributes["http.request.method"] = method.rawValue
            attributes["http.route"] = route
            attributes["url.path"] = path
            attributes["url.scheme"] = context.client.isHTTPS ? "https" : "http"
            attributes["server.address"] = serverAddress
            attributes["server.port"] = serverPort
            // `serverBuilder` speaks HTTP/1.1 only, over TLS or not.
            attributes["network.protocol.version"] = "1.1"
            attributes["client.address"] = context.client.ip
            attributes["network.peer.address"] = context.remoteAddress?.ipAddress
            attributes["user_agent.original"] = request.headers[.userAgent]
        }
    }

    private func finish(_ span: any Span, status: Int, note: JournalNote, path: String) {
        let facts = note.traceFacts(status: status, route: path)
        span.updateAttributes { attributes in
            attributes["http.response.status_code"] = status
            attributes["gatehouse.app_id"] = facts.appID
            attributes["gatehouse.outcome"] = RequestOutcome(status: status, reason: facts.reason).rawValue
            attributes["gatehouse.reason"] = facts.reason
            if status >= 500 { attributes["error.type"] = String(status) }
        }
        // A server span is an error only when the server failed: a 4xx is the client's (the conventions' rule).
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }
}

/// `gatehouse.outcome` of a request's span.
package enum RequestOutcome: String, Sendable {
    /// Answered as asked.
    case ok
    /// Refused for a reason the journal gives (`gatehouse.reason`): a 4xx, or an error redirected to the app.
    case refused
    /// The server failed (5xx).
    case error

    init(status: Int, reason: String?) {
        self = status >= 500 ? .error : reason == nil ? .ok : .refused
    }
}

/// Reads propagation headers (`traceparent`, `tracestate`) from a request's fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { fields[$0] }
    }
}
