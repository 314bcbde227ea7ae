import ChildProcesses
import Foundation
import NIOConcurrencyHelpers
import Testing
import GatehouseTestSupport
import NIOCore
import NIOHTTP1

/// PostgreSQL restarting under load: while it is down every request gets a clear, retryable 503 Graph error
/// and `/readyz` says not ready; once it is back requests succeed again (how soon is printed, not asserted), with no restart of
/// the server or any other manual step. Uses a cluster of its own so other tests are not disturbed.
@Suite("PostgreSQL restart under load", .tags(.process))
struct PostgresRestartTests {
    struct Outcome: Sendable {
        var at: Date; var status: UInt; var errorCode: Int? = nil; var transient: Bool? = nil;
        var message: String? = nil
    }

    @Test func requestsFailWith503WhileDownAndRecover() async throws {
        _ = try PostgresTestDatabase.adminURL()  // the suite needs the PostgreSQL binaries scripts/test provides
        let cluster = try await OwnPostgresCluster()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-restart-\(UUID().uuidString)"
        ).path
        do {
            let server = try await ServedGatehouse.node(dataDirectory: directory, database: cluster.url)
            do {
                try await restartUnderLoad(server: server, cluster: cluster)
            } catch {
                await server.kill()
                throw error
            }
            await server.kill()
        } catch {
            await cluster.destroy()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        await cluster.destroy()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func restartUnderLoad(server: ServedGatehouse, cluster: OwnPostgresCluster) async throws {
        let token = try await server.mintUserToken()
        let url = "\(server.baseURL)/v27.0/me?fields=id,name&access_token=\(token)"
        #expect(try await HTTP.get(url).status == .ok)
        #expect(try await HTTP.get(server.baseURL + "/readyz").text == "ready\n")

        // Load: three clients calling /me back to back for the whole run, recording every answer.
        let outcomes = NIOLockedValueBox<[Outcome]>([])
        let stopLoad = NIOLockedValueBox(false)
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        while !stopLoad.withLockedValue({ $0 }) {
                            guard let reply = try? await HTTP.get(url, timeout: .seconds(10)) else {
                                // No HTTP answer at all (connection error, timeout): recorded as status 0.
                                outcomes.withLockedValue { $0.append(Outcome(at: Date(), status: 0)) }
                                continue
                            }
                            let error = reply.json["error"] as? [String: Any]
                            outcomes.withLockedValue {
                                $0.append(
                                    Outcome(
                                        at: Date(), status: reply.status.code, errorCode: error?["code"] as? Int,
                                        transient: error?["is_transient"] as? Bool,
                                        message: error?["message"] as? String))
                            }
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let down = Date()  // from here on (PostgreSQL shutting down) failures are expected
        try await cluster.stop()
        try await Task.sleep(for: .seconds(1))
        // While down, a single request shows the exact reply, and readiness follows the database.
        let reply = try await HTTP.get(url)
        #expect(reply.status == .serviceUnavailable, "\(reply.text)")
        #expect(
            reply.text
                == #"{"error":{"message":"(#2) Service temporarily unavailable","type":"OAuthException","code":2,"is_transient":true}}"#
        )
        let notReady = try await HTTP.get(server.baseURL + "/readyz")
        #expect(notReady.status == .serviceUnavailable)
        #expect(notReady.text == "not ready: the database is unavailable\n")
        #expect(try await HTTP.get(server.baseURL + "/healthz").status == .ok)

        try await cluster.start()
        let back = Date()
        // Wait for the recovery as an event (the first 200 after the restart), not for a fixed time that a
        // loaded machine may overrun; then keep the load on for a while to see that it stays recovered.
        let recoveryDeadline = Date().addingTimeInterval(60)
        while Date() < recoveryDeadline, !outcomes.withLockedValue({ $0.contains { $0.at > back && $0.status == 200 } })
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(7))
        stopLoad.withLockedValue { $0 = true }
        await load.value

        let all = outcomes.withLockedValue { $0 }
        let failures = all.filter { $0.status != 200 }
        let early = all.filter { $0.at < down && $0.status != 200 }.count
        #expect(early == 0, "\(early) failures before PostgreSQL was stopped")
        #expect(!failures.isEmpty, "the load saw no outage")
        let unclear = failures.filter {
            !($0.status == 503 && $0.errorCode == 2 && $0.transient == true
                && $0.message == "(#2) Service temporarily unavailable")
        }
        #expect(
            unclear.isEmpty,
            "\(unclear.count) failures were not the 503 transient error, e.g. \(String(describing: unclear.first))")
        let firstSuccess = try #require(
            all.first { $0.at > back && $0.status == 200 }, "no success after the database returned")
        let seconds = firstSuccess.at.timeIntervalSince(back)
        // Pooled connections that died with the database may each fail once more right after the first success;
        // after that, every answer is a success.
        let lateFailures = all.filter { $0.at > firstSuccess.at.addingTimeInterval(5) && $0.status != 200 }
        #expect(lateFailures.isEmpty, "\(lateFailures.count) failures more than 5 s after the first success")
        print(
            "PostgreSQL restart: \(all.count) requests, \(failures.count) answered 503 while down, first success "
                + "\(String(format: "%.2f", seconds)) s after the database returned"
        )
        #expect(try await HTTP.get(server.baseURL + "/readyz").status == .ok)
    }
}
