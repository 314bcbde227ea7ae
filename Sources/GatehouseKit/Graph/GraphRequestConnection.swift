import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one or more `GraphRequest`s (Facebook's `GraphRequestConnection`).
///
/// One request is one HTTP call; several are one batch POST to `/{version}`. Completions run on the
/// main actor, in the order the requests were added, each exactly once: with the result, the Graph
/// error, `CoreError(.network)` when the server could not be reached or timed out, or
/// `URLError(.cancelled)` after `cancel()`. On the way the connection
/// - drops or expires `AccessToken.current` when the server rejects it (see `TokenInvalidation`),
/// - retries a transient error once and offers login errors to `ErrorRecovery.loginAttempter`,
/// - piggybacks a token refresh when the current token is more than a day old (at most hourly).
public final class GraphRequestConnection: GraphRequestConnecting, @unchecked Sendable {
    private static let defaultsLock = NSLock()
    nonisolated(unsafe) private static var _defaultConnectionTimeout: TimeInterval = 60

    /// The `timeout` new connections start with (60 s).
    public static var defaultConnectionTimeout: TimeInterval {
        get { defaultsLock.withLock { _defaultConnectionTimeout } }
        set { defaultsLock.withLock { _defaultConnectionTimeout = newValue } }
    }

    /// One added request and who hears about it.
    struct Entry: Sendable {
        enum Delivery: Sendable {
            /// The app's completion, on the main actor.
            case completion(GraphRequestCompletion)
            /// SDK-internal: async APIs and the token refresh. Runs before app completions.
            case handler(@Sendable (GraphOutcome) async -> Void)
        }

        var request: GraphRequest
        var batchParameters: JSONObject
        var delivery: Delivery
    }

    enum State { case created, started, finished, cancelled }

    /// The environment whose settings, clock and current token this connection uses.
    public let environment: GatehouseKitEnvironment
    /// Sends the HTTP calls; tests replace it.
    var sender: any GraphSending
    /// Set on the refresh's own connection so it does not piggyback a second refresh.
    var skipsPiggyback = false

    private let lock = NSLock()
    private var state = State.created
    private var entries: [Entry] = []
    private var task: Task<Void, Never>?
    private var _timeout: TimeInterval
    private weak var _delegate: (any GraphRequestConnectionDelegate)?
    private var _urlResponse: HTTPURLResponse?
    private var overriddenVersion: String?
    private var _delegateQueue: OperationQueue?

    /// A connection using `GatehouseKitEnvironment.current`.
    public convenience init() { self.init(environment: .current) }

    public init(environment: GatehouseKitEnvironment) {
        self.environment = environment
        self.sender = GraphTransport(environment: environment)
        self._timeout = Self.defaultConnectionTimeout
    }

    /// Seconds before the HTTP call gives up (default `defaultConnectionTimeout`).
    public var timeout: TimeInterval {
        get { lock.withLock { _timeout } }
        set { lock.withLock { _timeout = newValue } }
    }

    /// Held weakly, as in Facebook's SDK.
    public var delegate: (any GraphRequestConnectionDelegate)? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    /// The HTTP response of the last call (its URL carries no query, so no token).
    public var urlResponse: HTTPURLResponse? {
        get { lock.withLock { _urlResponse } }
        set { lock.withLock { _urlResponse = newValue } }
    }

    /// Facebook's queue for delegate calls. Kept so apps that set it compile; GatehouseKit calls the
    /// delegate from the connection's task whatever it holds (the delegate protocol is `Sendable`).
    public var delegateQueue: OperationQueue? {
        get { lock.withLock { _delegateQueue } }
        set { lock.withLock { _delegateQueue = newValue } }
    }

    /// Sends every request of this connection at `version` (e.g. `v2.0`) whatever version it was made
    /// with, as Facebook's `overrideGraphAPIVersion(_:)`; set it before `start()`.
    public func overrideGraphAPIVersion(_ version: String) {
        lock.withLock { overriddenVersion = version }
    }

    // MARK: Adding

    public func add(_ request: GraphRequest, completion: @escaping GraphRequestCompletion) {
        append(Entry(request: request, batchParameters: [:], delivery: .completion(completion)))
    }

    /// Adds a request other batch entries can refer to as `{result=name:$.path}` with `depends_on: name`.
    public func add(_ request: GraphRequest, name: String, completion: @escaping GraphRequestCompletion) {
        append(Entry(request: request, batchParameters: ["name": .string(name)], delivery: .completion(completion)))
    }

    /// Adds a request with batch entry keys such as `name`, `depends_on` or `omit_response_on_success`.
    public func add(_ request: GraphRequest, parameters: [String: Any], completion: @escaping GraphRequestCompletion) {
        let batchParameters = JSONValue(foundationObject: parameters)?.objectValue ?? JSONObject()
        append(Entry(request: request, batchParameters: batchParameters, delivery: .completion(completion)))
    }

    /// Adds an entry; after `start()` or `cancel()` the entry fails at once (Facebook raises an exception).
    func append(_ entry: Entry) {
        let refusal: (any Error)? = lock.withLock {
            switch state {
            case .created:
                entries.append(entry)
                return nil
            case .cancelled:
                return URLError(.cancelled)
            case .started, .finished:
                return CoreError(.invalidArgument, message: "Cannot add requests to a connection that has started")
            }
        }
        if let refusal {
            Task { await Self.deliver([(entry, .failure(refusal))], connection: self, notifyDelegate: false) }
        }
    }

    // MARK: Running

    /// Sends the requests. A second call does nothing.
    public func start() {
        lock.withLock {
            guard state == .created else { return }
            state = .started
            task = Task { await self.run() }
        }
    }

    /// Stops the HTTP call; every completion not yet called gets `URLError(.cancelled)`.
    public func cancel() {
        let pending: (task: Task<Void, Never>?, entries: [Entry], started: Bool)? = lock.withLock {
            guard state == .created || state == .started else { return nil }
            let started = state == .started
            state = .cancelled
            return (task, entries, started)
        }
        guard let pending else { return }
        pending.task?.cancel()
        let outcomes = pending.entries.map { ($0, GraphOutcome.failure(URLError(.cancelled))) }
        Task {
            await Self.deliver(
                outcomes, connection: self, networkError: URLError(.cancelled), notifyDelegate: pending.started)
        }
    }

    var isCancelled: Bool { lock.withLock { state == .cancelled } }

    /// Claims the single delivery of a run; false once the connection was cancelled or already delivered.
    func finishIfRunning() -> Bool {
        lock.withLock {
            guard state == .started else { return false }
            state = .finished
            return true
        }
    }

    var addedEntries: [Entry] {
        lock.withLock {
            guard let overriddenVersion else { return entries }
            return entries.map { entry in
                var entry = entry
                entry.request = entry.request.copy(version: overriddenVersion)
                return entry
            }
        }
    }

    /// Internal handlers first, then the app's completions and the delegate on the main actor.
    static func deliver(
        _ items: [(Entry, GraphOutcome)], connection: GraphRequestConnection, networkError: (any Error)? = nil,
        notifyDelegate: Bool = true
    ) async {
        var completions: [(GraphRequestCompletion, GraphOutcome)] = []
        for (entry, outcome) in items {
            switch entry.delivery {
            case .handler(let handler): await handler(outcome)
            case .completion(let completion): completions.append((completion, outcome))
            }
        }
        let delegate = notifyDelegate ? connection.delegate : nil
        await MainActor.run {
            for (completion, outcome) in completions {
                completion(connection, outcome.result?.foundationObject, outcome.error)
            }
            if let networkError {
                delegate?.requestConnection(connection, didFailWithError: networkError)
            } else {
                delegate?.requestConnectionDidFinishLoading(connection)
            }
        }
    }

    /// Runs `request` alone on this connection and returns its outcome; cancelling the calling task
    /// cancels the connection and throws `CancellationError`.
    func result(for request: GraphRequest) async throws -> JSONValue {
        let outcome: GraphOutcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                append(
                    Entry(
                        request: request, batchParameters: [:],
                        delivery: .handler { continuation.resume(returning: $0) }))
                start()
            }
        } onCancel: {
            self.cancel()
        }
        if let error = outcome.error {
            if Task.isCancelled, (error as? URLError)?.code == .cancelled { throw CancellationError() }
            throw error
        }
        return outcome.result ?? .null
    }
}

/// Sends one Graph HTTP call; `GraphTransport` in production.
protocol GraphSending: Sendable {
    func send(
        method: String, path: String, parameters: [String: String], tokenString: String?, version: String?,
        timeout: TimeInterval
    ) async throws -> GraphHTTPResponse
}

extension GraphTransport: GraphSending {}
