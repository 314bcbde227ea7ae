import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A raw Graph API reply.
public struct GraphHTTPResponse: Sendable {
    public var statusCode: Int
    public var headers: [String: String]
    /// The parsed JSON body, or nil when the body was not JSON.
    public var json: JSONValue?
    public var data: Data
}

/// Sends one HTTP request to the Gatehouse server's Graph API, the way Facebook's iOS SDK does
/// (`format=json&sdk=ios&include_headers=false`, token in `access_token`).
///
/// `GraphRequestConnection`, the login code exchange and profile loading all go through here.
public struct GraphTransport: Sendable {
    public let environment: GatehouseKitEnvironment

    public init(environment: GatehouseKitEnvironment = .current) { self.environment = environment }

    /// - Parameters:
    ///   - path: a Graph path such as `me` or `oauth/access_token` (no leading slash, no version).
    ///   - version: defaults to `Settings.graphAPIVersion`; pass `""` for an unversioned path.
    public func send(
        method: String, path: String, parameters: [String: String], tokenString: String?, version: String? = nil,
        timeout: TimeInterval = 60
    ) async throws -> GraphHTTPResponse {
        let settings = environment.settings
        let version = version ?? settings.graphAPIVersion
        var base = settings.serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        let urlString = base + "/" + (version.isEmpty ? "" : version + "/") + trimmed
        var params = parameters
        params["format"] = "json"
        params["sdk"] = "ios"
        params["include_headers"] = "false"
        if let tokenString, params["access_token"] == nil { params["access_token"] = tokenString }
        let pairs = params.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }

        var request: URLRequest
        if method == "GET" {
            guard let url = URL(string: urlString + "?" + FormEncoding.encode(pairs)) else {
                throw CoreError(.invalidArgument, message: "invalid Graph path \(path)")
            }
            request = URLRequest(url: url)
        } else {
            guard let url = URL(string: urlString) else {
                throw CoreError(.invalidArgument, message: "invalid Graph path \(path)")
            }
            request = URLRequest(url: url)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(FormEncoding.encode(pairs).utf8)
        }
        request.httpMethod = method
        request.timeoutInterval = timeout
        request.setValue("GatehouseKit.1.0 FBiOSSDK.18.1.0", forHTTPHeaderField: "User-Agent")

        let data: Data, response: URLResponse
        do {
            (data, response) = try await environment.urlSession.data(for: request)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if (error as? URLError)?.code == .cancelled { throw CancellationError() }
            throw CoreError(.network, message: "could not reach \(base): \(error.localizedDescription)")
        }
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (k, v) in http?.allHeaderFields ?? [:] { headers["\(k)".lowercased()] = "\(v)" }
        return GraphHTTPResponse(
            statusCode: http?.statusCode ?? 0, headers: headers, json: try? JSONValue.parse(data), data: data)
    }
}
