import Hummingbird
import HTTPTypes
import NIOCore

/// Gatehouse's route table (``GatehouseApp/router(services:pages:)``) and what HTTP asks of every route in it:
/// `HEAD` wherever `GET` is answered (RFC 9110 §9.3.2), in one place for the whole router.
///
/// Hummingbird routes by method, so a `HEAD` that no route names would fall to its 404. Rather than a `HEAD`
/// route beside each `GET`, the responder this builds (``HeadAsGetResponder``) routes every `HEAD` as its `GET`.
package struct GatehouseRouter: HTTPResponderBuilder {
    /// The routes, as registered.
    package let router: Router<GatehouseRequestContext>
    /// The 405 answers ``MethodNotAllowed`` added, as `METHOD /path`.
    let refusals: Set<String>

    init(_ router: Router<GatehouseRequestContext>, refusals: Set<String>) {
        // A `HEAD` route of its own would never be reached: every HEAD is answered by its GET.
        assert(!router.routes.contains { $0.method == .head }, "HEAD is answered by GET routes (HeadAsGetResponder)")
        self.router = router
        self.refusals = refusals
    }

    /// Every method and path a handler answers (`HEAD` is implied by each `GET`; the 405s are left out).
    package var routes: [Router<GatehouseRequestContext>.RouteDescription] {
        router.routes.filter { !refusals.contains(MethodNotAllowed.key($0.method, $0.path)) }
    }

    package func buildResponder() -> HeadAsGetResponder<RouterResponder<GatehouseRequestContext>> {
        HeadAsGetResponder(router.buildResponder())
    }
}

/// Answers `HEAD` as the `GET` of the same URL would be answered, without its body (RFC 9110 §9.3.2).
///
/// The request goes through the router and every middleware as that `GET`, so the handlers need no `HEAD` case
/// of their own and the `GET` runs once: a `HEAD` does nothing its `GET` does not. ``GatehouseRequestContext``
/// remembers it was a `HEAD`, so the journal and the metrics record `HEAD`. The answer keeps the `GET`'s status
/// and every header, `Content-Length` included; a body the `GET` would stream is never produced, and the `HEAD`
/// answer is framed as that stream would have been (no `Content-Length`).
package struct HeadAsGetResponder<Inner: HTTPResponder<GatehouseRequestContext>>: HTTPResponder {
    package typealias Context = GatehouseRequestContext
    let inner: Inner

    package init(_ inner: Inner) {
        self.inner = inner
    }

    package func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .head else { return try await inner.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        var context = context
        context.answersHead = true
        let response: Response
        do {
            response = try await inner.respond(to: Request(head: head, body: request.body), context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        return Self.withoutBody(response)
    }

    /// `response` with its status and headers, and no body. `Content-Length` stays the length of the body left
    /// out (Hummingbird set it from a body of known length); a body of unknown length leaves none, as the `GET`
    /// would have sent none.
    static func withoutBody(_ response: Response) -> Response {
        guard response.body.contentLength != nil else {
            return Response(
                status: response.status, headers: response.headers,
                body: ResponseBody(contentLength: nil) { writer in try await writer.finish(nil) })
        }
        var headers = response.headers
        if let length = response.body.contentLength, headers[.contentLength] == nil {
            headers[.contentLength] = String(length)
        }
        return Response(status: response.status, headers: headers, body: ResponseBody())
    }
}
