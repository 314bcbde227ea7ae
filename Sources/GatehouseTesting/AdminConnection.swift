import AsyncHTTPClient
import Foundation
import GatehouseProtocol
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The one client of `/admin/api/v1` every ``GatehouseEmulator`` helper goes through, whether the server runs in
/// this process or elsewhere: the in-process emulator is driven exactly as a remote one is.
///
/// Calls go through AsyncHTTPClient's shared client (kept-alive connections, no cookies or cache shared with the
/// app under test). Measured on Linux, URLSession (libcurl) spent about a millisecond of each helper call on
/// its own work; a test suite makes many.
struct AdminConnection: Sendable {
    /// The server's root (`http://127.0.0.1:49152`).
    let baseURL: URL
    /// Sent as `Authorization: Bearer`; nil for a development server on loopback, which is open.
    let adminToken: String?
    let client: HTTPClient

    init(baseURL: URL, adminToken: String?, client: HTTPClient = Self.sharedClient) {
        self.baseURL = baseURL
        self.adminToken = adminToken
        self.client = client
    }

    /// One pool of kept-alive connections for every emulator in the process, on NIO's shared event loops (like
    /// `HTTPClient.shared`, it lives as long as the process and is never shut down). A server that is not there
    /// fails the call at once: a test wants that error, not AsyncHTTPClient's retries until the timeout.
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(120))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The largest answer read (a paged list's page, a state export).
    static let largestAnswer = 256 << 20

    /// Sends one v1 call and returns its JSON answer (nil for 204).
    ///
    /// - Parameters:
    ///   - path: below `/admin/api/v1`, e.g. `/apps/123`.
    ///   - body: a JSON body; every POST, PUT and PATCH sends one (`{}` when none is given), as the API requires.
    /// - Throws: ``GatehouseAdminError`` for any answer outside 2xx, with the problem document's fields.
    @discardableResult
    func send(_ method: String, _ path: String, query: [String: String] = [:], body: JSONValue? = nil) async throws
        -> JSONValue?
    {
        let path = "/admin/api/v1" + path
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        // Below the root's own path, for a server behind a proxy at `https://ci.example/gatehouse`.
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        var request = HTTPClientRequest(url: components.url!.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Accept", value: "application/json")
        if let adminToken { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        if ["POST", "PUT", "PATCH"].contains(method) {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: (body ?? .object([:])).serializedData()))
        }
        let response = try await client.execute(request, timeout: .seconds(120))
        let data = Data(buffer: try await response.body.collect(upTo: Self.largestAnswer))
        let status = Int(response.status.code)
        let value = data.isEmpty ? nil : try? JSONValue.parse(data)
        guard (200..<300).contains(status) else {
            throw GatehouseAdminError(status: status, method: method, path: path, body: value, raw: data)
        }
        return value
    }

    /// Every item of a paged list (`{data, next_cursor}`), following the cursor.
    func list(_ path: String, query: [String: String] = [:]) async throws -> [JSONValue] {
        var items: [JSONValue] = [], query = query
        query["limit"] = "200"
        while true {
            let page = try await send("GET", path, query: query)
            items += page?["data"]?.arrayValue ?? []
            guard let cursor = page?["next_cursor"]?.stringValue else { return items }
            query["cursor"] = cursor
        }
    }
}

/// An admin API call the server refused: its HTTP status and, from the RFC 9457 problem document, the kind
/// (`https://gatehouse.dev/problems/validation`, …), the detail and the field at fault.
public struct GatehouseAdminError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (400 validation, 401/403 access, 404 unknown id, 409 conflict, 413 too large …).
    public let status: Int
    /// The problem's `type` URI; nil when the answer was not a problem document (a server without the route).
    public let type: String?
    /// What went wrong, as the server explains it.
    public let detail: String
    /// The request field at fault, for a validation error.
    public let field: String?
    /// The call, e.g. `POST /admin/api/v1/apps`.
    public let request: String

    init(status: Int, method: String, path: String, body: JSONValue?, raw: Data) {
        self.status = status
        type = body?["type"]?.stringValue
        detail =
            body?["detail"]?.stringValue ?? body?["title"]?.stringValue ?? body?["error"]?["message"]?.stringValue
            ?? String(decoding: raw.prefix(500), as: UTF8.self)
        field = body?["field"]?.stringValue
        request = "\(method) \(path)"
    }

    public var description: String {
        "\(request) answered \(status): \(detail)" + (field.map { " (field \($0))" } ?? "")
    }
}

extension JSONValue {
    /// An RFC 3339 time of a v1 resource as a `Date`.
    var date: Date? { stringValue.flatMap { ISO8601DateFormatter().date(from: $0) } }
    /// An array of strings (other items dropped).
    var strings: [String] { arrayValue?.compactMap(\.stringValue) ?? [] }
}
