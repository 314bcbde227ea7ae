import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 12, findings 9, 10 and 16: the console, the admin API and `/metrics` cannot be reached around their
/// gates: by an odd spelling of the path, by a cross-site form without a JSON body, or from the network.
@Suite struct AdminSurfaceTests {
    @Test func oddlySpelledConsolePathsAreGatedLikeTheRealOnes() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
        try await server.run { client in
            for path in ["//console/apps", "///console/users", "/%63onsole/apps", "/./console/apps"] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .seeOther, "\(path)")
                #expect(
                    r.location?.hasPrefix("/console/login?next=%2Fconsole%2F") == true,
                    "\(path) → \(r.location ?? "nil")")
            }
            for path in ["//admin/api/v1/state", "//admin//api/v1/clock", "/admin/api/v1/%63lock"] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .unauthorized, "\(path)")
                #expect(r.json["type"] == "https://gatehouse.dev/problems/unauthorized", "\(path)")
            }
        }
    }

    @Test func clockResetRefusesABodilessCrossSiteStylePost() async throws {
        let server = try await TestServer.make()
        server.clock.advance(by: 3600)
        try await server.run { client in
            for headers: HTTPFields in [
                [:], [.contentType: "application/x-www-form-urlencoded"], [.contentType: "text/plain"],
            ] {
                let r = try await client.execute(
                    uri: "/admin/api/v1/clock/reset", method: .post, headers: headers, body: ByteBuffer(string: ""))
                #expect(r.status == .unsupportedMediaType)
                #expect(
                    r.text
                        == V1Problem.text(
                            "unsupported-media-type", 415, "Send application/json",
                            "send a JSON body with Content-Type: application/json (even an empty one)"))
            }
            #expect(server.clock.currentOffset == 3600)
        }
    }

    @Test func productionMetricsRefuseRemoteClientsWithoutTheToken() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"; $0.metricsToken = "scrape-token-123"
            $0.trustedProxies = ["127.0.0.1"]
        })
        try await server.run(.live) { client in
            let remote: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"]
            let refused = try await client.execute(uri: "/metrics", method: .get, headers: remote)
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.wwwAuthenticate] == "Bearer realm=\"metrics\"")
            #expect(!refused.text.contains("gatehouse_"))
            var wrong = remote
            wrong[.authorization] = "Bearer guess"
            #expect(try await client.execute(uri: "/metrics", method: .get, headers: wrong).status == .unauthorized)
            var right = remote
            right[.authorization] = "Bearer scrape-token-123"
            let scraped = try await client.execute(uri: "/metrics", method: .get, headers: right)
            #expect(scraped.status == .ok)
            #expect(scraped.text.contains("gatehouse_http_requests_total"))
            // A scraper on the machine itself needs no token.
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .ok)
        }
    }
}
