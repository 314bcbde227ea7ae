import GatehouseCore
import Foundation
import GatehouseProtocol

/// One Graph API request, independent of HTTP, so batch entries run through the same dispatcher.
package struct GraphCall: Sendable {
    typealias Method = GraphMethod

    var method: Method
    /// Path segments after the optional version, e.g. `["me", "permissions"]`.
    var path: [String]
    /// The version named in the path, or the server default.
    var version: String
    /// Query and body parameters merged (body wins).
    var params: [String: String]
    /// From `access_token`, or `Authorization: Bearer|OAuth`.
    var accessToken: String?
    /// `Authorization: Basic` client credentials, for the token endpoint.
    var basicCredentials: (id: String, secret: String)?
    /// The client's IP (behind trusted proxies), for per-IP limits. Batch entries inherit their batch's, so
    /// per-IP limits (the token endpoint's) count every entry; nil only in tests.
    var clientIP: String?
    /// Whether this call is an entry of a batch (a batch inside a batch is refused).
    var insideBatch = false

    func param(_ name: String) -> String? {
        guard let value = params[name], !value.isEmpty else { return nil }
        return value
    }
}

/// A Graph API reply, turned into an HTTP response (or a batch entry) by the caller.
package struct GraphReply: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: Body
    /// The error this reply answers with, so callers (metrics, `?ids=`, the journal) need not read the body.
    var graphError: GraphError?

    enum Body: Sendable {
        case json(JSONValue)
        case bytes([UInt8], contentType: String)
        case empty
    }

    static func json(_ value: JSONValue, status: Int = 200) -> GraphReply {
        GraphReply(status: status, headers: [], body: .json(value))
    }

    static func encodable(_ value: some Encodable, status: Int = 200) -> GraphReply {
        // JSONValue's own encoder keeps the models' key order; Foundation's scrambles it on Linux.
        GraphReply(status: status, headers: [], body: .json((try? JSONValue(encoding: value)) ?? .null))
    }

    static func error(_ error: GraphError) -> GraphReply {
        var headers: [(String, String)] = []
        if let challenge = error.wwwAuthenticate { headers.append(("WWW-Authenticate", challenge)) }
        return GraphReply(status: error.httpStatus, headers: headers, body: .json(error.envelopeJSON), graphError: error)
    }

    static func redirect(_ location: String) -> GraphReply {
        GraphReply(status: 302, headers: [("Location", location)], body: .empty)
    }

    static let success = GraphReply.json(["success": true])
}

/// Lets handlers `throw` a Graph error instead of threading `Result`s through every call.
struct GraphFailure: Error {
    let error: GraphError
    init(_ error: GraphError) { self.error = error }
}
