import GatehouseCore
import CompressNIO
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOCore
import HTTPTypes
import Logging

/// Turns Hummingbird requests into `GraphCall`s and `GraphReply`s into responses.
///
/// This is where bad input is stopped: oversized or undecodable bodies, broken gzip, invalid
/// UTF-8 and malformed JSON all become Graph errors here, never crashes or bare 500s.
package struct GraphHTTPAdapter: Sendable {
    let services: GatehouseServices
    let dispatcher: GraphDispatcher
    /// HTML pages that also live under a version prefix (`/v19.0/dialog/oauth`), keyed by their unversioned path.
    var versionedPages: [String: @Sendable (Request, _ version: String) async throws -> Response] = [:]

    package init(services: GatehouseServices, dispatcher: GraphDispatcher) {
        self.services = services
        self.dispatcher = dispatcher
    }

    func register(on router: Router<GatehouseRequestContext>) {
        for method in [HTTPRequest.Method.get, .post, .delete, .put, .patch] {
            router.on("/", method: method) { request, context in await handle(request, context) }
            router.on("**", method: method) { request, context in await handle(request, context) }
        }
    }

    package func handle(_ request: Request, _ context: GatehouseRequestContext) async -> Response {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let version =
            segments.first.flatMap { GraphAPIVersion.parse(pathSegment: $0) }
            ?? services.configuration.defaultGraphVersion
        // A HEAD arrives as its GET (``HeadAsGetResponder``), so the pages answer it too.
        if request.method == .get, segments.count >= 2,
            let page = versionedPages[segments.dropFirst().joined(separator: "/")]
        {
            // The page itself rejects a malformed version with its 404 page.
            do { return try await page(request, segments[0]) } catch {
                return Self.response(.error(.unknownError), version: version)
            }
        }
        let path =
            segments.first.flatMap { GraphAPIVersion.parse(pathSegment: $0) } != nil
            ? Array(segments.dropFirst()) : segments
        if path.count < segments.count, !GraphAPIVersion.isReleased(version) {
            // A version Facebook never released is no version to Facebook: answered at the default version.
            let error = GraphError.unknownVersion(version, rest: path, method: context.method(of: request).rawValue)
            counted(error)
            return Self.response(.error(error), version: services.configuration.defaultGraphVersion)
        }
        let reply: GraphReply
        do {
            var call = try await makeCall(request, path: path, version: version, sent: context.method(of: request))
            call.clientIP = context.client.ip
            if let note = JournalNote.current { GraphHTTPAdapter.note(call, on: note) }
            reply = await dispatcher.dispatch(call)
        } catch let failure as GraphFailure {
            reply = .error(failure.error)
        } catch let unsupported as TokenCacheUnsupportedMethod {
            reply = unsupported.reply
        } catch {
            services.logger.error("graph request failed", metadata: ["error": "\(type(of: error))"])
            reply = .error(.unknownError)
        }
        if let error = reply.graphError { counted(error) }
        return Self.response(reply, version: version)
    }

    /// An error answered: counted, and written to the journal with its explanation.
    private func counted(_ error: GraphError) {
        services.metrics.graphError(code: error.code)
        JournalNote.current?.answered(with: error)
    }

    /// What the journal keeps of a call: the parameters that matter (redacted) and the token's hash prefix.
    static func note(_ call: GraphCall, on note: JournalNote) {
        note.parameters(call.params)
        if let token = call.accessToken { note.presented(token: token) }
        if call.path.first == "device" { note.classify(.device) }
    }

    /// - Parameter sent: the method the client sent, when it differs from the request's (a HEAD routed as GET).
    package func makeCall(_ request: Request, path: [String], version: String, sent: HTTPRequest.Method? = nil)
        async throws -> GraphCall
    {
        guard let query = FormEncoding.decode(request.uri.query ?? "") else {
            throw GraphFailure(.invalidParameter("The request's query string is not valid UTF-8 or percent-encoding"))
        }
        var params: [String: String] = [:]
        for (k, v) in query where params[k] == nil { params[k] = v }
        for (k, v) in try await bodyParameters(request) { params[k] = v }
        // Facebook honours a `method` parameter on GET and POST (JSONP, the JS SDK's DELETE, old libraries).
        let method: GraphCall.Method
        switch GraphMethodOverride.resolve(sent: (sent ?? request.method).rawValue, parameter: params["method"]) {
        case .run(let resolved, let consumed):
            method = resolved
            if consumed { params["method"] = nil }
        case .unsupported(let name):
            let name = GraphError.echo(name)
            // The token cache answers in its own shape: the seed's 50003 for PUT, PATCH and the like.
            if path.count == 2, path[1] == "token_cache" {
                throw TokenCacheUnsupportedMethod(
                    reply: TokenCacheEndpoint.failure(.unsupportedMethod, "Unsupported method: \(name)", status: 405))
            }
            throw GraphFailure(.unsupportedRequest(method: name, objectID: path.first ?? ""))
        }
        // A HEAD answers as its GET, except where the GET spends a code or mints a token: the answer's body is
        // left out, so the token would be made for nobody and the code lost.
        if sent == .head, GraphRoute.parse(method: method, path: path, batch: false, ids: nil) == .accessToken {
            throw GraphFailure(.unsupportedRequest(method: "HEAD", objectID: path.first ?? ""))
        }

        var call = GraphCall(
            method: method, path: path, version: version, params: params, accessToken: params["access_token"])
        if let auth = request.headers[.authorization] {
            let parts = auth.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 {
                switch parts[0].lowercased() {
                case "bearer", "oauth": call.accessToken = call.accessToken ?? parts[1]
                case "basic":
                    if let data = Data(base64Encoded: parts[1]), let text = String(data: data, encoding: .utf8),
                        let colon = text.firstIndex(of: ":")
                    {
                        call.basicCredentials = (String(text[..<colon]), String(text[text.index(after: colon)...]))
                    }
                default: break
                }
            }
        }
        if call.accessToken?.isEmpty == true { call.accessToken = nil }
        return call
    }

    /// Form, JSON (object) and gzip-encoded bodies, limited in size before and after decompression.
    func bodyParameters(_ request: Request) async throws -> [(String, String)] {
        let limit = services.configuration.maxBodyBytes
        var request = request
        var buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw GraphFailure(.requestTooLarge(limit: limit))
        }
        guard buffer.readableBytes > 0 else { return [] }
        if let encoding = request.headers[.contentEncoding]?.lowercased(), encoding != "identity" {
            guard encoding == "gzip" || encoding == "deflate" else {
                throw GraphFailure(.invalidParameter("Unsupported Content-Encoding \(encoding)"))
            }
            do {
                buffer = try buffer.decompress(
                    with: encoding == "gzip" ? .gzip() : .zlib(), maxSize: limit, allocator: ByteBufferAllocator())
            } catch {
                throw GraphFailure(.invalidParameter("The request body could not be decompressed"))
            }
        }
        let bytes = buffer.readableBytesView
        guard let text = String(validating: Array(bytes), as: UTF8.self) else {
            throw GraphFailure(.invalidParameter("The request body is not valid UTF-8"))
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/json") || (contentType.isEmpty && text.first == "{") {
            guard let value = try? JSONValue.parse(Data(text.utf8)), case .object(let object) = value else {
                throw GraphFailure(.invalidParameter("The request body is not a JSON object"))
            }
            return object.pairs.map { key, value in
                switch value {
                case .string(let s): (key, s)
                case .null: (key, "")
                default: (key, value.serialized())
                }
            }
        }
        if contentType.hasPrefix("multipart/") {
            throw GraphFailure(.invalidParameter("multipart bodies are not supported by this server"))
        }
        guard let pairs = FormEncoding.decode(text) else {
            throw GraphFailure(.invalidParameter("The request body is not valid form data"))
        }
        return pairs
    }

    /// Facebook's reply headers: JSON with charset, the API version, no caching of secrets.
    package static func response(_ reply: GraphReply, version: String) -> Response {
        // Appended, not assigned: assigning searches the fields for an earlier value first, and these are new.
        var headers = HTTPFields()
        headers.reserveCapacity(6)
        headers.append(HTTPField(name: ResponseNames.apiVersion, value: version))
        headers.append(ResponseNames.cacheControl)
        headers.append(ResponseNames.pragma)
        headers.append(ResponseNames.allowOrigin)
        let status = HTTPResponse.Status(code: reply.status)
        switch reply.body {
        case .json: headers.append(ResponseNames.jsonType)
        case .bytes(_, let type): headers.append(HTTPField(name: .contentType, value: type))
        case .empty: break
        }
        // An endpoint's own headers replace these (none of the hot routes has any).
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        switch reply.body {
        case .json(let value):
            return Response(
                status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
        case .bytes(let bytes, _):
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .empty:
            return Response(status: status, headers: headers)
        }
    }

    /// Facebook's fixed reply headers, validated once.
    private enum ResponseNames {
        static let apiVersion = HTTPField.Name("facebook-api-version")!
        static let cacheControl = HTTPField(name: .cacheControl, value: "private, no-cache, no-store, must-revalidate")
        static let pragma = HTTPField(name: HTTPField.Name("Pragma")!, value: "no-cache")
        static let allowOrigin = HTTPField(name: .accessControlAllowOrigin, value: "*")
        static let jsonType = HTTPField(name: .contentType, value: "application/json; charset=UTF-8")
    }
}

/// A token-cache request with a method the Graph API has no name for, answered before a `GraphCall` exists.
struct TokenCacheUnsupportedMethod: Error {
    let reply: GraphReply
}
