import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 12, findings 17 and 19: a batch cannot multiply calls past the per-IP limits (its entries count as the
/// client's own calls, and batches do not nest), and `POST /device/login` is limited per app and per IP.
@Suite struct RequestFloodTests {
    static let rateLimited: JSONValue = .object([
        "error": .object([
            "message": "(#613) Calls to this api have exceeded the rate limit.", "type": "OAuthException", "code": 613,
        ])
    ])

    static func post(
        _ client: any TestClientProtocol, _ uri: String, _ form: [(String, String)], from ip: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let ip { headers[HTTPField.Name("X-Forwarded-For")!] = ip }
        return try await client.execute(
            uri: uri, method: .post, headers: headers, body: ByteBuffer(string: FormEncoding.encode(form)))
    }

    @Test func batchEntriesCountAgainstTheTokenEndpointsPerIPLimit() async throws {
        let server = try await TestServer.make(configure: { $0.limits.tokenEndpointCallsPerIP = 2 })
        try await server.run(.live) { client in
            let entry =
                #"{"method":"GET","relative_url":"oauth/access_token?client_id=\#(server.app.id)&"#
                + #"client_secret=\#(server.app.secret)&grant_type=client_credentials"}"#
            let batch = "[" + Array(repeating: entry, count: 3).joined(separator: ",") + "]"
            let r = try await Self.post(client, "/", [("access_token", server.appToken), ("batch", batch)])
            let items = try #require(r.json.arrayValue)
            #expect(items.count == 3)
            #expect(items[0]["code"]?.intValue == 200)
            #expect(items[1]["code"]?.intValue == 200)
            #expect(items[2]["code"]?.intValue == 403)
            #expect(items[2]["body"]?.stringValue.flatMap { try? JSONValue.parse(Data($0.utf8)) } == Self.rateLimited)
        }
    }

    @Test func batchesCannotNest() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let inner = #"[{"method":"GET","relative_url":"me"}]"#
            let nested = #"[{"method":"POST","relative_url":"/","body":"batch=\#(FormEncoding.escape(inner))"}]"#
            let r = try await Self.post(client, "/", [("access_token", alice), ("batch", nested)])
            let items = try #require(r.json.arrayValue)
            #expect(items[0]["code"]?.intValue == 400)
            let body = items[0]["body"]?.stringValue.flatMap { try? JSONValue.parse(Data($0.utf8)) }
            #expect(body?["error"]?["message"]?.stringValue == "(#100) Batch requests cannot be nested")
        }
    }

    @Test func deviceLoginIsLimitedPerIP() async throws {
        let server = try await TestServer.make(configure: {
            $0.limits.deviceLoginsPerIP = 2; $0.trustedProxies = ["127.0.0.1"]
        })
        try await server.run(.live) { client in
            let token = "\(server.app.id)|\(server.app.clientToken)"
            for _ in 0..<2 {
                #expect(
                    try await Self.post(client, "/device/login", [("access_token", token)], from: "203.0.113.5").status
                        == .ok)
            }
            let limited = try await Self.post(client, "/device/login", [("access_token", token)], from: "203.0.113.5")
            #expect(limited.status == .forbidden)
            #expect(limited.json == Self.rateLimited)
            // Another client is not affected.
            #expect(
                try await Self.post(client, "/device/login", [("access_token", token)], from: "203.0.113.6").status
                    == .ok)
        }
    }

    @Test func deviceLoginIsLimitedPerApp() async throws {
        let server = try await TestServer.make(configure: {
            $0.limits.deviceLoginsPerApp = 3; $0.trustedProxies = ["127.0.0.1"]
        })
        try await server.run(.live) { client in
            let token = "\(server.app.id)|\(server.app.clientToken)"
            for i in 0..<3 {
                #expect(
                    try await Self.post(client, "/device/login", [("access_token", token)], from: "203.0.113.\(i + 10)")
                        .status == .ok)
            }
            let limited = try await Self.post(client, "/device/login", [("access_token", token)], from: "203.0.113.99")
            #expect(limited.json == Self.rateLimited)
        }
    }
}
