import GatehouseCore
import Foundation
import GatehouseProtocol

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
        return GraphReply(
            status: error.httpStatus, headers: headers, body: .json(error.envelopeJSON), graphError: error)
    }

    static func redirect(_ location: String) -> GraphReply {
        GraphReply(status: 302, headers: [("Location", location)], body: .empty)
    }

    static let success = GraphReply.json(["success": true])
}
