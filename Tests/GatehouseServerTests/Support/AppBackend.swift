import Foundation
import GatehouseProtocol
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A local HTTP server that plays an app's backend for callbacks: it records every POST body and fails the
/// first `failFirst` requests with a 500.
actor AppBackendInbox {
    private(set) var bodies: [String] = []
    private var failuresLeft: Int
    let reply: String

    init(failFirst: Int, reply: String = "") {
        failuresLeft = failFirst
        self.reply = reply
    }

    func receive(_ body: String) -> Bool {
        bodies.append(body)
        if failuresLeft > 0 { failuresLeft -= 1; return false }
        return true
    }

    /// Runs the backend for the duration of `body`, passing its base URL.
    static func serve<T: Sendable>(_ inbox: AppBackendInbox, _ body: @Sendable (String) async throws -> T) async throws
        -> T
    {
        let router = Router()
        router.post("/callback") { request, _ -> Response in
            var request = request
            let text = String(buffer: try await request.collectBody(upTo: 1 << 16))
            guard await inbox.receive(text) else { return Response(status: .internalServerError) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: inbox.reply)))
        }
        let port = PortBox()
        var quiet = Logger(label: "gatehouse.test.backend")
        quiet.logLevel = .critical
        let backend = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { await port.set($0.localAddress?.port ?? 0) }, logger: quiet)
        // Stopped by a graceful shutdown, never by cancelling its task: cancelling closed the listening channel
        // under Hummingbird's own shutdown handler, which then logged "Server shutdown error: Already closed".
        let services = ServiceGroup(
            configuration: .init(services: [backend], gracefulShutdownSignals: [], logger: quiet))
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await services.run(); return nil
            }
            do {
                let value = try await body("http://127.0.0.1:\(try await port.wait())/callback")
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }

    /// The form fields of the request bodies received so far.
    func forms() -> [[String: String]] {
        bodies.map { Dictionary(FormEncoding.decode($0) ?? [], uniquingKeysWith: { a, _ in a }) }
    }
}

actor PortBox {
    var port: Int?
    func set(_ p: Int) { port = p }
    func wait() async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            if let port { return port }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }
}
