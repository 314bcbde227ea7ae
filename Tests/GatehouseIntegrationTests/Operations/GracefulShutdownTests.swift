import ChildProcesses
import Foundation
import Testing
import GatehouseTestSupport

/// SIGTERM drains: a request already being received when the signal arrives is answered in full, and the
/// process then exits with status 0 (swift-service-lifecycle's graceful shutdown).
///
/// On PostgreSQL the drained request reads the database (its token was never looked up, so no cache holds it):
/// the connection pool is a service listed before the HTTP server, so it closes only after the drain.
@Suite("Graceful shutdown on SIGTERM", .tags(.process))
struct GracefulShutdownTests {
    @Test(arguments: [false, true])
    func sigtermAnswersTheInFlightRequestThenExitsCleanly(onPostgres: Bool) async throws {
        let scratch = ScratchDirectory("drain")  // `gatehouse serve` creates it
        defer { scratch.remove() }
        let directory = scratch.path
        let database = onPostgres ? try await PostgresTestDatabase.create() : nil
        do {
            try await drains(directory: directory, database: database)
        } catch {
            if let database { try? await PostgresTestDatabase.drop(database) }
            throw error
        }
        if let database { try await PostgresTestDatabase.drop(database) }
    }

    private func drains(directory: String, database: String?) async throws {
        let server = try await ServedGatehouse.node(dataDirectory: directory, database: database)
        let token = try await server.mintUserToken()

        // Half a request: the head and part of the body. The server is now in the middle of it.
        let body = "fields=id,name&access_token=\(token)"
        let split = body.index(body.startIndex, offsetBy: 10)
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(
            "POST /v27.0/me?method=GET HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body[..<split])
        try await Task.sleep(for: .milliseconds(300))

        server.terminate()
        // The event to wait for: the server has begun its graceful shutdown, i.e. stopped accepting connections.
        // Only then is the rest of the body sent, so the reply below shows that the shutdown drained it.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, (try? RawHTTPConnection(port: server.port)) != nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(
            (try? RawHTTPConnection(port: server.port)) == nil, "the server still accepts connections after SIGTERM")
        #expect(server.isRunning, "the server must wait for the in-flight request")

        try connection.send(String(body[split...]))
        let reply = await connection.readToEnd()
        #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply)")
        #expect(reply.contains("\"name\""))

        let status = await server.exitStatus(timeout: .seconds(20))
        #expect(status == 0, "exit status \(String(describing: status)); log: \(server.output)")
        await server.kill()  // only if it did not exit
    }

    @Test func sigtermOnAnIdleServerExitsAtOnceWithStatusZero() async throws {
        let scratch = ScratchDirectory("idle")  // `gatehouse serve` creates it
        defer { scratch.remove() }
        let directory = scratch.path
        let server = try await ServedGatehouse.node(dataDirectory: directory)
        server.terminate()
        let status = await server.exitStatus(timeout: .seconds(10))
        #expect(status == 0, "log: \(server.output)")
        await server.kill()
    }
}
