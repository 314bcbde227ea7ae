import ChildProcesses
import Foundation
import Testing
import GatehouseTestSupport
import NIOHTTP1

/// What a client was told it has, it has: an issuance that was answered survives `kill -9` of the server,
/// on SQLite (`synchronous=FULL`) and on PostgreSQL (autocommit, committed before the reply).
@Suite("Durability: answered issuances survive kill -9", .serialized, .tags(.process))
struct DurabilityTests {
    @Test(arguments: ["sqlite", "postgresql"])
    func answeredTokensSurviveKill9(backend: String) async throws {
        // One folder for both servers: removed after the second is killed, or at exit if a failure left one running.
        let scratch = ScratchDirectory("durable")
        defer { scratch.remove() }
        let directory = scratch.path
        let database = backend == "postgresql" ? try await PostgresTestDatabase.create() : nil
        let first = try await ServedGatehouse.node(dataDirectory: directory, database: database)
        let (appID, secret) = try first.demoApp()

        // A user token (test-user install) and an app token (client_credentials), each answered 200.
        let userToken = try await first.mintUserToken()
        let appReply = try await HTTP.get(
            "\(first.baseURL)/v27.0/oauth/access_token?grant_type=client_credentials&client_id=\(appID)&client_secret=\(secret)"
        )
        #expect(appReply.status == .ok)
        let appToken = try #require(appReply.json["access_token"] as? String)
        await first.kill()  // SIGKILL right after the replies: nothing is flushed or closed on the way out

        let second = try await ServedGatehouse.node(dataDirectory: directory, database: database)
        let me = try await HTTP.get("\(second.baseURL)/v27.0/me?fields=id,name&access_token=\(userToken)")
        #expect(me.status == .ok, "\(me.text)")
        #expect(me.json["id"] is String)
        let debug = try await HTTP.get(
            "\(second.baseURL)/v27.0/debug_token?input_token=\(userToken)&"
                + "access_token=\(appToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        )
        #expect(debug.status == .ok, "\(debug.text)")
        #expect((debug.json["data"] as? [String: Any])?["is_valid"] as? Bool == true)
        await second.kill()
        if let database { try await PostgresTestDatabase.drop(database) }
    }
}
