import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// One login's HTTP listener on a loopback port: serves the callback paths, keeps the first callback,
/// and gives up after the timeout.
final class LoopbackListener: @unchecked Sendable {
    private enum Phase {
        case waiting(CheckedContinuation<URL?, any Error>?)
        case ended(Result<URL?, any Error>)
    }

    private let lock = NSLock()
    private var phase: Phase = .waiting(nil)
    /// A callback was accepted; its page is being written before the login ends.
    private var claimed = false
    private var _redirectURI = ""
    private var serverTask: Task<Void, Never>?
    private var serviceGroup: ServiceGroup?
    private var watchdog: Task<Void, Never>?

    var redirectURI: String { lock.withLock { _redirectURI } }

    private init() {}

    /// Binds `host` on a free port and serves `/callback` and `/callback/complete`. After `timeout` the
    /// login ends with `LoopbackLoginError.timedOut`.
    static func start(host: String, timeout: Duration) async throws -> LoopbackListener {
        let listener = LoopbackListener()
        let router = Router()
        router.get("callback") { request, _ in
            listener.respond(path: LoopbackRoute.callbackPath, query: request.uri.query)
        }
        router.get("callback/complete") { request, _ in
            listener.respond(path: LoopbackRoute.completePath, query: request.uri.query)
        }
        let bound = PortPromise()
        var app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: 0), serverName: nil),
            onServerRunning: { channel in bound.fulfil(.success(channel.localAddress?.port ?? 0)) })
        // Hummingbird announces itself at info level and reports the shutdown at error level; the
        // program's own output (the CLI prints the dialog URL) must stay clean.
        app.logger.logLevel = .critical
        // Run under a service group so `stop()` can shut down gracefully: cancelling the server task
        // instead would drop connections the browser keeps alive (favicon requests, say) mid-response.
        var quiet = Logger(label: "gatehouse.loopback")
        quiet.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: quiet))
        listener.lock.withLock { listener.serviceGroup = group }
        listener.serverTask = Task {
            do {
                try await group.run()
                bound.fulfil(.failure(LoopbackLoginError.listenerStopped))
            } catch {
                bound.fulfil(.failure(error))
            }
        }
        let port: Int
        do {
            port = try await bound.value()
        } catch {
            await listener.stop()
            throw error
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        listener.lock.withLock { listener._redirectURI = "http://\(hostPart):\(port)\(LoopbackRoute.callbackPath)" }
        let watchdogTask = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { listener.end(.failure(LoopbackLoginError.timedOut(timeout))) }
        }
        listener.lock.withLock { listener.watchdog = watchdogTask }
        return listener
    }

    /// Waits for the callback URL; nil when the waiting task is cancelled.
    func wait() async throws -> URL? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL?, any Error>) in
                let ended: Result<URL?, any Error>? = lock.withLock {
                    switch phase {
                    case .waiting:
                        phase = .waiting(continuation)
                        return nil
                    case .ended(let result):
                        return result
                    }
                }
                if let ended { continuation.resume(with: ended) }
            }
        } onCancel: {
            end(.success(nil))
        }
    }

    /// Ends the login with `result` unless it already ended.
    func end(_ result: Result<URL?, any Error>) {
        let waiting: CheckedContinuation<URL?, any Error>?? = lock.withLock {
            guard case .waiting(let continuation) = phase else { return nil }
            phase = .ended(result)
            return .some(continuation)
        }
        if case .some(let continuation?) = waiting { continuation.resume(with: result) }
    }

    /// Closes the port and stops the timer; returns once the server has stopped.
    func stop() async {
        let (server, timer, group) = lock.withLock { (serverTask, watchdog, serviceGroup) }
        timer?.cancel()
        await group?.triggerGracefulShutdown()
        // A browser that never lets go of a connection must not keep the login from finishing.
        let deadline = Task {
            try? await Task.sleep(for: .seconds(2))
            if !Task.isCancelled { server?.cancel() }
        }
        await server?.value
        deadline.cancel()
    }

    private func respond(path: String, query: String?) -> Response {
        guard let route = LoopbackRoute.route(path: path, query: query, redirectURI: redirectURI) else {
            return Response(status: .notFound)
        }
        let isOpen = lock.withLock {
            if case .waiting = phase { return !claimed }
            return false
        }
        switch route {
        case .relayFragment:
            return page(isOpen ? .fragmentRelay : .alreadyHandled)
        case .complete(let callbackURL):
            let first = lock.withLock {
                guard case .waiting = phase, !claimed else { return false }
                claimed = true
                return true
            }
            guard first else { return page(.alreadyHandled) }
            // The login ends only after the page is written, so stopping the server cannot cut it off.
            return page(LoopbackPage.ending(forCallback: callbackURL)) { [self] in end(.success(callbackURL)) }
        }
    }

    private func page(_ page: LoopbackPage, afterWriting: (@Sendable () -> Void)? = nil) -> Response {
        let buffer = ByteBuffer(string: page.html)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        guard let afterWriting else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
        }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: buffer.readableBytes) { writer in
                try await writer.write(buffer)
                try await writer.finish(nil)
                afterWriting()
            })
    }
}

/// The bound port, or why binding failed; the first answer wins.
private final class PortPromise: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Int, any Error>?
    private var continuation: CheckedContinuation<Int, any Error>?

    func fulfil(_ value: Result<Int, any Error>) {
        let waiting: CheckedContinuation<Int, any Error>? = lock.withLock {
            guard result == nil else { return nil }
            result = value
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: value)
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let known: Result<Int, any Error>? = lock.withLock {
                if let result { return result }
                self.continuation = continuation
                return nil
            }
            if let known { continuation.resume(with: known) }
        }
    }
}
