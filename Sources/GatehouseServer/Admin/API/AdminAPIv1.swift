import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOFoundationEssentialsCompat
import Logging

/// One operation of `/admin/api/v1`: its method, its path as the OpenAPI document writes it (`/apps/{id}`), the
/// largest body it reads, and its handler.
struct V1Route: Sendable {
    var method: HTTPRequest.Method
    var path: String
    /// The largest body read, in bytes; a larger one answers 413 before the handler runs.
    var bodyLimit: Int = 64 * 1024
    /// False only for the document itself, which anyone may read.
    var guarded = true
    /// Whether a POST may come with no body at all, read as `{}` (``AdminAPIv1/isBodilessNonBrowser(_:)``): only
    /// `POST /state/reset`, whose document makes the body optional. Every other write needs a JSON media type.
    var bodyOptional = false
    var handler: @Sendable (V1Call) async throws -> Response

    /// Hummingbird's form of the path: `admin/api/v1/apps/:id`.
    var routerPath: String {
        "/admin/api/v1"
            + path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}")
                    ? ":" + segment.dropFirst().dropLast() : String(segment)
            }.joined(separator: "/")
    }
}

/// What a handler gets: the request, its path parameters and query, and the body already read (within the
/// route's limit) when the method carries one.
struct V1Call: Sendable {
    let request: Request
    let context: GatehouseRequestContext
    let services: GatehouseServices
    /// The raw body of a POST, PUT or PATCH (empty when none was sent); nil for other methods.
    let raw: ByteBuffer?
    /// Who is asking (``AdminActor/development`` in development mode without credentials).
    var actor: AdminActor = .development

    func parameter(_ name: String) -> String { context.parameters.get(name) ?? "" }
    func query(_ name: String) -> String? { request.uri.queryParameters.get(name) }

    /// The body as an object to read field by field; no body reads as `{}`.
    func body() throws -> RequestBody {
        guard let raw, raw.readableBytes > 0 else { return try RequestBody(.object([:])) }
        guard let value = try? JSONValue.parse(Data(buffer: raw)) else {
            throw Problem.validation("body", "the body is not valid JSON")
        }
        return try RequestBody(value)
    }
}

/// The versioned admin REST API (issue 28): every route of `admin-v1.yaml`, served under `/admin/api/v1`.
///
/// Each request passes, in order: the access check (``AdminAPIv1/authorize(_:services:)``), the media type (every
/// POST, PUT and PATCH must be `application/json`, body or not, so no cross-site form can reach a write), the
/// body limit, then the handler. Errors are RFC 9457 problems (``Problem``).
struct AdminAPIv1: Sendable {
    let services: GatehouseServices

    /// Every operation, in the document's order.
    var routes: [V1Route] {
        AdminAPIv1Document.routes + V1Apps(services: services).routes + V1People(services: services).routes
            + V1TwoFactor(services: services).routes
            + V1Grants(services: services).routes + V1Tokens(services: services).routes
            + V1Codes(services: services).routes
            + V1State(services: services).routes
            + V1Emulator(services: services).routes + V1Journal(services: services).routes
            + V1Events(services: services).routes
            + V1AdminTokens(services: services).routes
            + V1Mail(services: services).routes
            + V1Webhooks(services: services).routes
    }

    func register(on router: Router<GatehouseRequestContext>) {
        for route in routes {
            router.on(RouterPath(route.routerPath), method: route.method) { request, context in
                await handle(route, request, context)
            }
        }
    }

    private func handle(_ route: V1Route, _ request: Request, _ context: GatehouseRequestContext) async -> Response {
        do {
            let actor = route.guarded ? try await Self.authorize(request, services: services) : .development
            var raw: ByteBuffer?
            if [.post, .put, .patch].contains(request.method) {
                guard Self.isJSON(request) || (route.bodyOptional && Self.isBodilessNonBrowser(request)) else {
                    throw Self.notJSON
                }
                var request = request
                do {
                    raw = try await request.collectBody(upTo: route.bodyLimit)
                } catch {
                    throw Problem(.tooLarge, "the body is larger than \(route.bodyLimit) bytes")
                }
                if let raw, raw.readableBytes > 0, !Self.isJSON(request) { throw Self.notJSON }
            }
            return try await route.handler(
                V1Call(request: request, context: context, services: services, raw: raw, actor: actor))
        } catch {
            if let problem = Problem.from(error) { return problem.response }
            services.logger.error(
                "admin API v1 failed", metadata: ["error": "\(type(of: error))", "path": "\(route.path)"])
            return Problem(.unavailable, "the request could not be completed (\(type(of: error)))").response
        }
    }

    /// Who may use the v1 API. The one place every v1 route asks: ``AdminAuthorization`` (development mode open;
    /// production mode an admin token or an admin session, a read-only token for reads only).
    /// - Returns: who is asking.
    /// - Throws: an `unauthorized` (401) or `forbidden` (403) ``Problem`` when the request may not go on.
    static func authorize(_ request: Request, services: GatehouseServices) async throws -> AdminActor {
        let decision = await AdminAuthorization(services: services).decide(request)
        guard case .allowed(let actor) = decision else { throw decision.problem ?? Problem(.forbidden, "refused") }
        return actor
    }

    /// A write whose body is not JSON.
    static let notJSON = Problem(
        .unsupportedMediaType, "send a JSON body with Content-Type: application/json (even an empty one)")

    static func isJSON(_ request: Request) -> Bool {
        guard let type = request.headers[.contentType]?.lowercased() else { return false }
        return type.hasPrefix("application/json")
    }

    /// A write with no body at all (no Content-Type, no length or `Content-Length: 0`, nothing chunked) from a
    /// client that is not a browser (no `Origin`, which browsers send with every POST): `curl -X POST …/state/reset`.
    /// Its body reads as `{}`. A browser's bodiless cross-site `fetch` carries an Origin, so it still needs JSON.
    static func isBodilessNonBrowser(_ request: Request) -> Bool {
        guard request.headers[.contentType] == nil, request.headers[.origin] == nil,
            request.headers[.transferEncoding] == nil
        else { return false }
        return request.headers[.contentLength].map { $0.trimmingCharacters(in: .whitespaces) == "0" } ?? true
    }

    /// A JSON answer; nil is 204 No Content.
    static func reply(_ value: JSONValue?, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        guard let value else { return Response(status: .noContent, headers: headers) }
        headers[.contentType] = "application/json; charset=UTF-8"
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
    }

    /// RFC 3339 time, as every v1 resource writes it.
    static func time(_ date: Date) -> JSONValue { .string(PageDates.utc(date, "yyyy-MM-dd'T'HH:mm:ss'Z'")) }
    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
}
