import GatehouseCore
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Development mode only: answers 421 Misdirected Request to any `Host` that is neither loopback nor the public URL.
///
/// A browser sends the same `Host` on every request, so accepted values are remembered (at most
/// ``AcceptedHosts/capacity``); refused ones are checked afresh each time, as they always were.
package struct DevelopmentHostGuard: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let configuration: GatehouseConfiguration
    let accepted = AcceptedHosts()

    package init(configuration: GatehouseConfiguration) { self.configuration = configuration }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard configuration.isDevelopment else { return try await next(request, context) }
        let host = request.head.authority
        if let host, accepted.contains(host) { return try await next(request, context) }
        guard DevelopmentExposure.acceptsHost(host, configuration: configuration) else {
            return Response(
                status: .init(code: 421, reasonPhrase: "Misdirected Request"),
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(
                    byteBuffer: .init(
                        string:
                            "This development server answers only to localhost, 127.0.0.1, [::1] or its public URL.\n"))
            )
        }
        if let host { accepted.insert(host) }
        return try await next(request, context)
    }
}

/// `Host` values a development server accepted; the answer for a value never changes while it runs.
package final class AcceptedHosts: Sendable {
    static let capacity = 64
    private let values = NIOLockedValueBox<Set<String>>([])

    package init() {}

    package func contains(_ host: String) -> Bool { values.withLockedValue { $0.contains(host) } }

    package func insert(_ host: String) {
        values.withLockedValue { values in
            if values.count < Self.capacity { values.insert(host) }
        }
    }
}
