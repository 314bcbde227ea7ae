import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Drives `/admin/api/v1` in-process: raw JSON text in, the response out (tests compare exact bodies).
struct V1Client {
    let client: any TestClientProtocol

    func call(
        _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, contentType: String? = "application/json"
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        if let contentType, method == .post || method == .put || method == .patch {
            headers[.contentType] = contentType
        }
        return try await client.execute(
            uri: "/admin/api/v1" + path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    func get(_ path: String) async throws -> TestResponse { try await call(.get, path) }
    func post(_ path: String, _ body: String = "{}") async throws -> TestResponse { try await call(.post, path, body) }
    func put(_ path: String, _ body: String = "{}") async throws -> TestResponse { try await call(.put, path, body) }
    func patch(_ path: String, _ body: String) async throws -> TestResponse { try await call(.patch, path, body) }
    func delete(_ path: String) async throws -> TestResponse { try await call(.delete, path) }
}

enum V1Problem {
    /// The exact problem document the API sends.
    static func text(_ kind: String, _ status: Int, _ title: String, _ detail: String, field: String? = nil) -> String {
        var object: JSONObject = [
            "type": .string("https://gatehouse.dev/problems/" + kind), "title": .string(title),
            "status": .int(Int64(status)), "detail": .string(detail),
        ]
        if let field { object["field"] = .string(field) }
        return JSONValue.object(object).serialized()
    }

    static func validation(_ field: String, _ detail: String) -> String {
        text("validation", 400, "The request is not valid", detail, field: field)
    }
    static func notFound(_ detail: String) -> String { text("not-found", 404, "No such resource", detail) }
    /// A body field naming an app or person that does not exist (issue 41 item 6: 404, as a path naming one).
    static func unknownReference(_ field: String, _ detail: String) -> String {
        text("not-found", 404, "No such resource", detail, field: field)
    }
    static func conflict(_ detail: String, field: String? = nil) -> String {
        text("conflict", 409, "The request conflicts with the current state", detail, field: field)
    }
}

extension TestServer {
    /// Runs `body` with a ``V1Client``.
    func v1(_ body: @escaping @Sendable (V1Client) async throws -> Void) async throws {
        try await run { client in try await body(V1Client(client: client)) }
    }
}
