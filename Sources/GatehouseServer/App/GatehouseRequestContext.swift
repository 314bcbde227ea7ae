import GatehouseCore
import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage plus the peer address and the real client.
package struct GatehouseRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?
    /// The client behind any trusted proxy (set by ``ForwardedHeadersMiddleware``); rate limits key on its IP.
    package var client: ForwardedClient
    /// True when the client sent `HEAD`: ``HeadAsGetResponder`` routes it as the `GET` and sends no body, and the
    /// journal and metrics record it as `HEAD` (``method(of:)``).
    package var answersHead = false

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        // Read once: a channel's remote address is behind a lock.
        let remoteAddress = source.channel.remoteAddress
        self.remoteAddress = remoteAddress
        self.client = ForwardedClient(ip: remoteAddress?.ipAddress, isHTTPS: false)
    }

    /// The method the client sent: `HEAD` for a `HEAD` that the handlers see as its `GET`.
    package func method(of request: Request) -> HTTPRequest.Method { answersHead ? .head : request.method }
}
