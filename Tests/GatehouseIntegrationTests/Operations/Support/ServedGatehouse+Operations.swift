import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import NIOHTTP1
import Testing

extension ServedGatehouse {
    /// A node for tests of what only a process shows (crashes, signals, several nodes): `gatehouse serve` on
    /// `dataDirectory`, logging warnings and up into its output.
    /// - Parameter database: `--database` (nil: SQLite in `dataDirectory`).
    static func node(dataDirectory: String, database: String? = nil) async throws -> ServedGatehouse {
        var arguments = ["--log-level", "warning"]
        // A postgres:// database implies production mode, which refuses the dev seed these tests log in with;
        // production mode's own rules are covered by ProductionSafetyTests and CLIOpsTests.
        if let database { arguments += ["--database", database, "--mode", "development"] }
        return try await start(
            arguments, dataDirectory: .given(dataDirectory), environment: ["GATEHOUSE_DATABASE_URL": nil],
            deadline: .seconds(60))
    }

    /// The demo app of the dev seed the first node on a database wrote.
    func demoApp() throws -> (appID: String, appSecret: String) {
        guard let app = seed?.app else { throw NodeFailure.noSeed(output) }
        return (app.id, app.secret)
    }

    /// A test user's token with `permissions`, minted through the Graph API (an answered issuance).
    func mintUserToken(permissions: String = "email") async throws -> String {
        let (appID, secret) = try demoApp()
        let reply = try await HTTP.post(
            "\(baseURL)/v27.0/\(appID)/accounts/test-users",
            form: ["installed": "true", "permissions": permissions, "access_token": "\(appID)|\(secret)"])
        guard reply.status == .ok, let token = reply.json["access_token"] as? String else {
            throw NodeFailure.noToken(reply.text)
        }
        return token
    }

    enum NodeFailure: Error { case noSeed(String), noToken(String) }
}

/// Small HTTP helpers over AsyncHTTPClient's shared client.
enum HTTP {
    struct Reply: Sendable {
        var status: HTTPResponseStatus
        var text: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
        var errorCode: Int? { (json["error"] as? [String: Any])?["code"] as? Int }
    }

    static func get(_ url: String, timeout: TimeAmount = .seconds(10)) async throws -> Reply {
        try await send(HTTPClientRequest(url: url), timeout: timeout)
    }

    static func post(_ url: String, form: [String: String], method: HTTPMethod = .POST) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = form.map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }
        .joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        return try await send(request, timeout: .seconds(30))
    }

    static func send(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> Reply {
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: response.status, text: String(buffer: body))
    }
}
