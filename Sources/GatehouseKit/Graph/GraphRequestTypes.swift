import Foundation

/// The HTTP method of a Graph request (Facebook's `HTTPMethod`, a typed string).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// `GET`, the default.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `DELETE`.
    public static let delete = HTTPMethod(rawValue: "DELETE")

    public var description: String { rawValue }
}

/// Per-request switches (Facebook's `GraphRequestFlags`, same bit values).
public struct GraphRequestFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt

    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// No flags.
    public static let none: GraphRequestFlags = []
    /// Never fall back to the `{appID}|{clientToken}` token when the request has no token of its own.
    public static let skipClientToken = GraphRequestFlags(rawValue: 1 << 1)
    /// Keep `AccessToken.current` even when the server says the request's token is invalid (190/102).
    public static let doNotInvalidateTokenOnError = GraphRequestFlags(rawValue: 1 << 2)
    /// No automatic retry of transient errors and no login recovery (see `ErrorRecovery`).
    public static let disableErrorRecovery = GraphRequestFlags(rawValue: 1 << 3)
}

/// Called once per request with the connection, the parsed JSON result (`[String: Any]`, `[Any]`,
/// `String`, `Int`, `Double`, `Bool` or `NSNull`, as Facebook's SDK hands out Foundation objects) or an error.
///
/// Facebook calls completions on the main thread; so does GatehouseKit, on the main actor. Completions
/// of one connection run in the order their requests were added.
public typealias GraphRequestCompletion =
    @MainActor (_ connection: (any GraphRequestConnecting)?, _ result: Any?, _ error: (any Error)?) -> Void

/// A set of Graph requests sent together (Facebook's `GraphRequestConnecting`).
public protocol GraphRequestConnecting: AnyObject, Sendable {
    /// Seconds before the HTTP call gives up (default 60).
    var timeout: TimeInterval { get set }
    var delegate: (any GraphRequestConnectionDelegate)? { get set }
    func add(_ request: GraphRequest, completion: @escaping GraphRequestCompletion)
    func start()
    func cancel()
}

/// Hears about a connection's progress, on the main actor (Facebook's `GraphRequestConnectionDelegate`).
/// Every method has an empty default.
@MainActor
public protocol GraphRequestConnectionDelegate: AnyObject, Sendable {
    /// The connection is about to send its requests.
    func requestConnectionWillBeginLoading(_ connection: any GraphRequestConnecting)
    /// Every request got a reply (successful or not) and every completion has run.
    func requestConnectionDidFinishLoading(_ connection: any GraphRequestConnecting)
    /// The HTTP call itself failed (network, timeout, cancellation); called after the completions.
    func requestConnection(_ connection: any GraphRequestConnecting, didFailWithError error: any Error)
}

extension GraphRequestConnectionDelegate {
    public func requestConnectionWillBeginLoading(_ connection: any GraphRequestConnecting) {}
    public func requestConnectionDidFinishLoading(_ connection: any GraphRequestConnecting) {}
    public func requestConnection(_ connection: any GraphRequestConnecting, didFailWithError error: any Error) {}
}
