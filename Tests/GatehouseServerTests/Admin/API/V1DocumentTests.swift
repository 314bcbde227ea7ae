import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The OpenAPI document is the contract: every route the server registers under `/admin/api/v1` is in it, and
/// every operation in it reaches a handler.
@Suite struct V1DocumentTests {
    /// `GET /apps/{id}` with each path parameter written `{}`, so the router's and the document's spellings compare.
    static func normalised(_ method: String, _ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            segment.hasPrefix(":") || segment.hasPrefix("{") || segment.hasPrefix("${") ? "{}" : String(segment)
        }
        return method.uppercased() + " " + segments.joined(separator: "/")
    }

    @Test func everyRegisteredRouteIsDocumentedAndEveryDocumentedOperationIsRouted() async throws {
        let server = try await TestServer.make()
        let pages = try await PageRenderer.load(devMode: true)
        let router = GatehouseApp.router(services: server.services, pages: pages)
        let registered = Set(
            router.routes.map { Self.normalised($0.method.rawValue, "\($0.path)") }
                .filter { $0.contains(" /admin/api/v1/") }.map {
                    $0.replacingOccurrences(of: " /admin/api/v1", with: " ")
                })
        try await server.v1 { api in
            let yaml = try await api.get("/openapi.yaml")
            #expect(yaml.status == .ok)
            #expect(yaml.headers[.contentType] == "application/yaml; charset=UTF-8")
            // Parsed with Yams from the text as served, not from the server's cached copy.
            let document = try AdminAPIv1Document.parse(yaml.text)
            #expect(document["openapi"] == "3.1.0")
            let json = try await api.get("/openapi.json")
            #expect(json.status == .ok)
            #expect(json.json == document)

            let operations = AdminAPIv1Document.operations(document)
            let documented = Set(
                operations.map { operation -> String in
                    let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                    return Self.normalised(parts[0], parts[1])
                })
            #expect(registered.subtracting(documented).sorted() == [], "registered but not documented")
            #expect(documented.subtracting(registered).sorted() == [], "documented but not registered")
            #expect(operations.count >= 15)

            for operation in operations.sorted() {
                let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                let path = parts[1].split(separator: "/", omittingEmptySubsequences: false)
                    .map { $0.hasPrefix("{") ? "0" : String($0) }.joined(separator: "/")
                let response = try await api.call(HTTPRequest.Method(parts[0])!, path, "{}")
                // A 404 from a handler is a problem document; the router's own 404 and 405 are not.
                let routed =
                    response.status != .methodNotAllowed
                    && (response.status != .notFound || response.headers[.contentType] == "application/problem+json")
                #expect(routed, "\(operation) answered \(response.status.code) from the router")
            }
        }
    }
}
