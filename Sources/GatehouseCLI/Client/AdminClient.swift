import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one HTTP client of a server's admin API (`/admin/api/v1/…`), used by every management command given
/// `--server`. It sends the admin token as `Authorization: Bearer`, and turns a refusal into one line a person can
/// act on: the problem document's `detail`, else a Graph-shaped error's message (an older server's, or a retired
/// route's `410 Gone`).
struct AdminClient: Sendable {
    /// `http://host:port`, without a trailing slash.
    let baseURL: String
    /// `--admin-token`, else `GATEHOUSE_ADMIN_TOKEN`; nil against an open development server.
    let token: String?
    /// The roots an `https://` server's certificate may chain to (`--ca-cert`, `SSL_CERT_FILE`).
    let trust: ServerTrust
    private let session: URLSession

    init(baseURL: String, token: String?, trust: ServerTrust = ServerTrust()) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.trust = trust
        session = trust.roots.isEmpty ? .shared : trust.urlSession()
    }

    /// Calls `path` (from the server's root, e.g. `/admin/api/v1/apps`) and returns the status and body of a
    /// 2xx answer. A refusal exits 1 with the server's reason; no server exits 3.
    func call(_ method: String, _ path: String, json body: Data? = nil) async throws -> (Int, Data) {
        guard let url = URL(string: baseURL + path), url.scheme == "http" || url.scheme == "https" else {
            throw fail("--server must be an http(s) URL")
        }
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let outcome: (Data?, URLResponse?, (any Error)?) = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { continuation.resume(returning: ($0, $1, $2)) }.resume()
        }
        guard outcome.2 == nil, let http = outcome.1 as? HTTPURLResponse else {
            throw exitWith(ClientExit.unreachable, await trust.unreachableMessage(baseURL))
        }
        let data = outcome.0 ?? Data()
        guard (200..<300).contains(http.statusCode) else {
            throw exitWith(ClientExit.failed, refusal(http.statusCode, data))
        }
        return (http.statusCode, data)
    }

    /// Calls a v1 route (`/apps`, `/people/{id}`…) and parses its JSON answer (nil for 204 No Content).
    func v1(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue? {
        let payload =
            body.map { Data($0.serialized().utf8) }
            ?? (["POST", "PUT", "PATCH"].contains(method) ? Data("{}".utf8) : nil)
        let (status, data) = try await call(method, "/admin/api/v1" + path, json: payload)
        if status == 204 || data.isEmpty { return nil }
        guard let value = try? JSONValue.parse(data) else {
            throw fail("the server's answer to \(method) \(path) is not JSON")
        }
        return value
    }

    /// Every item of a paged v1 list, following `next_cursor` to the end.
    func all(_ path: String) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        var cursor: String?
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let page = try await v1(
                "GET", path + separator + "limit=200" + (cursor.map { "&cursor=" + Self.escape($0) } ?? ""))
            items += page?["data"]?.arrayValue ?? []
            cursor = page?["next_cursor"]?.stringValue
        } while cursor != nil
        return items
    }

    /// The line printed for a refused call.
    func refusal(_ status: Int, _ data: Data) -> String {
        let object = try? JSONValue.parse(data)
        let message = object?["detail"]?.stringValue ?? object?["error"]?["message"]?.stringValue ?? "HTTP \(status)"
        if status == 401 {
            return message
                + (token == nil ? " (pass --admin-token or set GATEHOUSE_ADMIN_TOKEN)" : " (check the admin token)")
        }
        return message
    }

    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? value
    }
}

/// `--server URL` and `--admin-token T` (or `GATEHOUSE_ADMIN_TOKEN`) for the commands that otherwise open the
/// database in `--data-dir`: with `--server` they act through the server's admin API instead.
struct RemoteOptions: ParsableArguments {
    @Option(
        help:
            "Act through this Gatehouse server's admin API (e.g. http://127.0.0.1:8080) instead of opening --data-dir.")
    var server: String?
    @Option(
        name: .customLong("admin-token"),
        help: "The admin token for --server (env GATEHOUSE_ADMIN_TOKEN); not needed in development mode.")
    var adminToken: String?
    @OptionGroup var trustOptions: TrustOptions

    /// The client when `--server` is given, else nil (work on the local database).
    var client: AdminClient? {
        get throws {
            guard let server else { return nil }
            return AdminClient(
                baseURL: server, token: adminToken ?? Environment.value("GATEHOUSE_ADMIN_TOKEN"),
                trust: try trustOptions.trust())
        }
    }
}
