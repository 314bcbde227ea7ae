import Foundation
@testable import GatehouseKit
import GatehouseProtocol

/// A Graph client answering by path, recording each call.
final class FakeLoginGraph: LoginGraphClient, @unchecked Sendable {
    struct Call: Equatable { let path: String; let parameters: [String: String]; let tokenString: String? }
    private let lock = NSLock()
    private var _calls: [Call] = []
    private let replies: [String: (Int, JSONValue)]

    init(_ replies: [String: (Int, JSONValue)]) { self.replies = replies }

    var calls: [Call] { lock.withLock { _calls } }

    func get(_ path: String, parameters: [String: String], tokenString: String?) async throws -> GraphHTTPResponse {
        lock.withLock { _calls.append(Call(path: path, parameters: parameters, tokenString: tokenString)) }
        let (status, json) = replies[path] ?? (404, ["error": ["message": "no fake reply", "code": 100]])
        return GraphHTTPResponse(statusCode: status, headers: [:], json: json, data: json.serializedData())
    }
}
