import Foundation
import GatehouseProtocol

/// One Graph API call (Facebook's `GraphRequest`): a path, parameters, a token, a version and a method.
///
/// Defaults follow Facebook's: GET, the token of `AccessToken.current` at creation time, and
/// `Settings.graphAPIVersion`. When `Settings.isGraphErrorRecoveryEnabled` is false every request
/// gets `.disableErrorRecovery`. Run it with `start(completion:)`, `start()` or `startJSON()`, or add
/// several to one `GraphRequestConnection` to send them as a single batch.
public final class GraphRequest: @unchecked Sendable, CustomStringConvertible {
    private let lock = NSLock()
    private var _parameters: [String: Any]
    private var _flags: GraphRequestFlags

    /// The path below the version, e.g. `me` or `me/permissions`.
    public let graphPath: String
    /// The user token to send, or nil to fall back (see `GraphRequestConnection`).
    public let tokenString: String?
    /// The Graph API version, e.g. `v27.0`.
    public let version: String
    public let httpMethod: HTTPMethod
    /// Facebook's flag for App Events requests; kept so apps can set and read it. Gatehouse sends such a
    /// request like any other (it has no App Events endpoint to route it to).
    public let forAppEvents: Bool
    /// Facebook's switch between its two Graph hosts; kept so apps can set and read it. Gatehouse has one
    /// host (`Settings.serverURL`), so it does not change where the request goes.
    public let useAlternativeDefaultDomainPrefix: Bool

    /// Parameters sent as the query (GET) or form body (POST, DELETE). Values are strings, numbers,
    /// booleans, or arrays/dictionaries (sent as JSON text).
    public var parameters: [String: Any] {
        get { lock.withLock { _parameters } }
        set { lock.withLock { _parameters = newValue } }
    }

    public var flags: GraphRequestFlags {
        get { lock.withLock { _flags } }
        set { lock.withLock { _flags = newValue } }
    }

    /// `GET graphPath` with `fields=""` (Facebook sends an explicit empty field list).
    public convenience init(graphPath: String) {
        self.init(graphPath: graphPath, parameters: ["fields": ""], flags: [])
    }

    /// `GET graphPath` with parameters.
    public convenience init(graphPath: String, parameters: [String: Any]) {
        self.init(graphPath: graphPath, parameters: parameters, flags: [])
    }

    /// `graphPath` with parameters and a method, using the current token.
    public convenience init(graphPath: String, parameters: [String: Any], httpMethod: HTTPMethod) {
        self.init(
            graphPath: graphPath, parameters: parameters,
            tokenString: GatehouseKitEnvironment.current.currentAccessToken?.tokenString,
            httpMethod: httpMethod, flags: [])
    }

    /// `GET graphPath` with parameters and flags, using the current token.
    public convenience init(graphPath: String, parameters: [String: Any]?, flags: GraphRequestFlags) {
        self.init(
            graphPath: graphPath, parameters: parameters,
            tokenString: GatehouseKitEnvironment.current.currentAccessToken?.tokenString,
            httpMethod: .get, flags: flags)
    }

    /// A request with an explicit token (nil: fall back to the current token, then the client token)
    /// and version (nil: `Settings.graphAPIVersion`).
    public convenience init(
        graphPath: String, parameters: [String: Any]?, tokenString: String?, version: String?,
        httpMethod: HTTPMethod
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: version,
            httpMethod: httpMethod, flags: [])
    }

    /// A request with an explicit token and flags, at `Settings.graphAPIVersion`.
    /// (nil method: GET, as Facebook's nullable `HTTPMethod:` here.)
    public convenience init(
        graphPath: String, parameters: [String: Any]?, tokenString: String?, httpMethod: HTTPMethod?,
        flags: GraphRequestFlags
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: nil,
            httpMethod: httpMethod ?? .get, flags: flags)
    }

    /// The designated initialiser; `forAppEvents` and `useAlternativeDefaultDomainPrefix` as Facebook's
    /// longest initialisers take them (see `GraphRequest+Overloads.swift` for every other spelling).
    public init(
        graphPath: String, parameters: [String: Any]?, tokenString: String?, version: String?,
        httpMethod: HTTPMethod, flags: GraphRequestFlags, forAppEvents: Bool = false,
        useAlternativeDefaultDomainPrefix: Bool = false
    ) {
        self.forAppEvents = forAppEvents
        self.useAlternativeDefaultDomainPrefix = useAlternativeDefaultDomainPrefix
        let settings = GatehouseKitEnvironment.current.settings
        self.graphPath = graphPath
        self._parameters = parameters ?? [:]
        self.tokenString = tokenString
        self.version = version ?? settings.graphAPIVersion
        self.httpMethod = httpMethod
        self._flags = settings.isGraphErrorRecoveryEnabled ? flags : flags.union(.disableErrorRecovery)
    }

    /// The same request at another Graph API version (`GraphRequestConnection.overrideGraphAPIVersion(_:)`).
    func copy(version: String) -> GraphRequest {
        GraphRequest(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: version,
            httpMethod: httpMethod, flags: flags, forAppEvents: forAppEvents,
            useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    /// Whether automatic retry and login recovery are off for this request.
    public var isGraphErrorRecoveryDisabled: Bool { flags.contains(.disableErrorRecovery) }

    /// Turns automatic retry and login recovery off or on.
    public func setGraphErrorRecoveryDisabled(_ disabled: Bool) {
        lock.withLock {
            if disabled { _flags.insert(.disableErrorRecovery) } else { _flags.remove(.disableErrorRecovery) }
        }
    }

    /// Never prints the token.
    public var description: String { "GraphRequest(\(httpMethod) \(version)/\(graphPath))" }

    /// Parameters as strings, with any query written into `graphPath` merged in; `graphPath` without it.
    var wireComponents: (path: String, parameters: [String: String]) {
        GraphParameterEncoding.components(graphPath: graphPath, parameters: parameters)
    }

    // MARK: Starting

    /// Sends the request on a new connection; `completion` runs on the main actor.
    @discardableResult
    public func start(completion: GraphRequestCompletion? = nil) -> any GraphRequestConnecting {
        let connection = GraphRequestConnection()
        connection.add(self, completion: completion ?? { _, _, _ in })
        connection.start()
        return connection
    }

    /// Sends the request and returns the parsed result as Foundation objects (see `GraphRequestCompletion`).
    ///
    /// Throws `GraphAPIError` for Graph errors, `CoreError` for local and network failures, and
    /// `CancellationError` when the calling task is cancelled.
    public func start() async throws -> Any {
        try await startJSON().foundationObject
    }

    /// Sends the request and returns the result as typed JSON.
    public func startJSON() async throws -> JSONValue {
        try await GraphRequestConnection().result(for: self)
    }
}
