import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
import GatehouseTestSupport
import SQLiteKit
import SQLiteNIO

/// The seed's remote-cache error codes that had no test: 50003 (a method other than GET, POST, DELETE)
/// and 50001 (the data could not be stored).
@Suite struct TokenCacheErrorCodeTests {
    @Test func otherMethodsAre50003() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for method in [HTTPRequest.Method.put, .patch] {
                let r = try await client.execute(uri: "/v27.0/\(server.app.id)/token_cache", method: method)
                #expect(r.status == .methodNotAllowed)
                #expect(
                    r.text
                        == #"{"status":false,"errorCode":50003,"errorMessage":"Unsupported method: \#(method.rawValue)"}"#
                )
            }
            // Elsewhere such a method stays the Graph API's own error.
            let graph = try await client.execute(uri: "/v27.0/me", method: .put)
            #expect(graph.json["error"]?["code"]?.intValue == 100)
        }
    }

    @Test func aFailedWriteIs50001() async throws {
        let server = try await TestServer.make()
        // Break the table under the running server, the way a full disk or a lost database would fail the write.
        let side = try await SQLiteDatabaseFactory.open(
            path: server.services.configuration.databasePath, logger: StorageBackends.logger)
        try await side.sql().raw("DROP TABLE token_cache_slots").run()
        try await side.close()
        let key = "sess_" + String(repeating: "x9Z1", count: 10)
        let form = [
            ("access_token", "\(server.app.id)|\(server.app.clientToken)"), ("session_key", key),
            ("session_proof", TokenCacheWire.sessionProof(sessionKey: key, appSecret: server.app.secret)),
            ("token_info", #"{"accessToken":{"tokenString":"EAAx"}}"#),
        ]
        try await server.run { client in
            let r = try await client.execute(
                uri: "/v27.0/\(server.app.id)/token_cache", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: FormEncoding.encode(form)))
            #expect(r.status == .serviceUnavailable)
            #expect(
                r.text
                    == #"{"status":false,"errorCode":50001,"errorMessage":"The token cache is unavailable. Try again later."}"#
            )
        }
    }
}
