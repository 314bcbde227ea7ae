import GatehouseCore
import Foundation
import Hummingbird

/// The server's responder while it starts: it answers 503 until storage is open and the routes exist, then
/// hands every request to the router.
///
/// It lets the runner bind its port *before* anything builds URLs from it. Choosing a free port first and
/// binding it later left a window (seconds under load, while migrations and the dev seed ran) in which another
/// process could take the port; clients that read the announced port then talked to that other server.
package final class StartupGate: HTTPResponder, @unchecked Sendable {
    package typealias Context = GatehouseRequestContext

    private let lock = NSLock()
    private var responder: (any HTTPResponder<GatehouseRequestContext>)?

    /// From now on every request goes to `responder`.
    package init() {}

    package func open(with responder: some HTTPResponder<GatehouseRequestContext>) {
        lock.withLock { self.responder = responder }
    }

    package func respond(to request: Request, context: Context) async throws -> Response {
        guard let responder = lock.withLock({ self.responder }) else {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.retryAfter] = "1"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .serviceUnavailable, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "starting\n"))
            )
        }
        return try await responder.respond(to: request, context: context)
    }
}

/// The port the server bound, or why it could not bind; the first answer wins.
package final class BoundPort: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Int, any Error>?
    private var waiting: [CheckedContinuation<Int, any Error>] = []

    package init() {}

    package func fulfil(_ value: Result<Int, any Error>) {
        let resumed: [CheckedContinuation<Int, any Error>] = lock.withLock {
            guard result == nil else { return [] }
            result = value
            defer { waiting = [] }
            return waiting
        }
        resumed.forEach { $0.resume(with: value) }
    }

    package func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let known: Result<Int, any Error>? = lock.withLock {
                if let result { return result }
                waiting.append(continuation)
                return nil
            }
            if let known { continuation.resume(with: known) }
        }
    }
}

/// The server stopped before it had bound its port.
package struct ServerStoppedBeforeBindingError: Error {}
