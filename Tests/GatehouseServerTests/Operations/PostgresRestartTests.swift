import Foundation
import Testing

/// PostgreSQL restarting under load: while it is down every request gets a clear, retryable 503 Graph error
/// and `/readyz` says not ready; within five seconds of its return requests succeed again, with no restart of
/// the server or any other manual step. Uses a cluster of its own so other tests are not disturbed.
@Suite("PostgreSQL restart under load")
struct PostgresRestartTests {
    struct Outcome: Sendable { var at: Date; var status: UInt; var errorCode: Int?; var transient: Bool? }

    @Test func requestsFailWith503WhileDownAndRecoverWithinFiveSeconds() async throws {
        _ = try PostgresTestDatabase.adminURL() // the suite needs the PostgreSQL binaries scripts/test provides
        let cluster = try await OwnPostgresCluster()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-restart-\(UUID().uuidString)").path
        let server = try await GatehouseProcess(dataDirectory: directory, database: cluster.url)
        defer {
            server.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let token = try await server.mintUserToken()
        let url = "\(server.baseURL)/v21.0/me?fields=id,name&access_token=\(token)"
        #expect(try await HTTP.get(url).status == .ok)
        #expect(try await HTTP.get(server.baseURL + "/readyz").text == "ready\n")

        try await cluster.stop()
        // Down: several requests in a row, each a 503 with Facebook's transient error.
        for _ in 0..<5 {
            let reply = try await HTTP.get(url)
            #expect(reply.status == .serviceUnavailable, "\(reply.text)")
            let error = try #require(reply.json["error"] as? [String: Any])
            #expect(error["code"] as? Int == 2)
            #expect(error["is_transient"] as? Bool == true)
            #expect(error["message"] as? String == "(#2) Service temporarily unavailable")
            #expect(error["type"] as? String == "OAuthException")
        }
        let notReady = try await HTTP.get(server.baseURL + "/readyz")
        #expect(notReady.status == .serviceUnavailable)
        #expect(notReady.text == "not ready: the database is unavailable\n")
        #expect(try await HTTP.get(server.baseURL + "/healthz").status == .ok)

        // Back: poll like a client under load and measure from the moment PostgreSQL accepts connections.
        try await cluster.start()
        let back = Date()
        var firstSuccess: Date?
        while Date().timeIntervalSince(back) < 10 {
            if (try? await HTTP.get(url, timeout: .seconds(5)))?.status == .ok { firstSuccess = Date(); break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let recovered = try #require(firstSuccess, "no successful request within 10 s of PostgreSQL's return")
        let seconds = recovered.timeIntervalSince(back)
        #expect(seconds < 5, "recovered after \(seconds) s")
        print("PostgreSQL restart: first success \(String(format: "%.2f", seconds)) s after the database returned")
        // And it stays up: every further request succeeds.
        for _ in 0..<20 {
            let reply = try await HTTP.get(url)
            #expect(reply.status == .ok, "\(reply.text)")
        }
        #expect(try await HTTP.get(server.baseURL + "/readyz").status == .ok)
        server.kill()
        await cluster.destroy()
    }
}
