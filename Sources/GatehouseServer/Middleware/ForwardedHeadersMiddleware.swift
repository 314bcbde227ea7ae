import GatehouseCore
import HTTPTypes
import Hummingbird

/// Resolves the real client (``ForwardedClient``) for every request and adds HSTS to HTTPS responses.
///
/// `X-Forwarded-For` / `X-Forwarded-Proto` are believed only when the TCP peer is one of the configured
/// trusted proxies; from anyone else they are ignored, so a client cannot pick its own rate-limit key.
package struct ForwardedHeadersMiddleware: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let trusted: [IPRange]
    let servesTLS: Bool

    package init(configuration: GatehouseConfiguration) {
        trusted = configuration.trustedProxies.compactMap(IPRange.init)
        servesTLS = configuration.servesTLS
    }

    /// Whether the middleware can change anything: without trusted proxies and without TLS the client is the
    /// TCP peer over plain HTTP, which ``GatehouseRequestContext`` already sets, and no HSTS is due.
    static func isNeeded(_ configuration: GatehouseConfiguration) -> Bool {
        !configuration.trustedProxies.compactMap(IPRange.init).isEmpty || configuration.servesTLS
    }

    /// One year, the usual HSTS lifetime; no `preload` (that is a decision for the operator).
    static let hsts = "max-age=31536000; includeSubDomains"

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.client = ForwardedClient.resolve(
            peer: context.remoteAddress?.ipAddress,
            forwardedFor: request.headers[.xForwardedFor], forwardedProto: request.headers[.xForwardedProto],
            servesTLS: servesTLS, trusted: trusted)
        var response = try await next(request, context)
        if context.client.isHTTPS {
            response.headers[.strictTransportSecurity] = Self.hsts
        }
        return response
    }
}

extension HTTPField.Name {
    package static let xForwardedFor = Self("X-Forwarded-For")!
    package static let xForwardedProto = Self("X-Forwarded-Proto")!
}
