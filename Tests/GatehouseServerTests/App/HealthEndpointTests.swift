import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// `/healthz`, `/readyz`, and the Graph API's answer while the database is unreachable.
@Suite struct HealthEndpointTests {
    /// A token store whose database is gone.
    struct UnreachableTokenStore: TokenStore {
        func fail() -> StorageError { .unavailable("PostgreSQL is unreachable") }
        func insert(_ token: TokenRecord) async throws { throw fail() }
        func find(tokenHash: String) async throws -> TokenRecord? { throw fail() }
        func setExpiry(id: String, expiresAt: Date?) async throws { throw fail() }
        func revoke(id: String, at: Date) async throws -> [TokenRecord] { throw fail() }
        func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] { throw fail() }
        func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] { throw fail() }
        func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] { throw fail() }
        func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] { throw fail() }
    }

    struct UnreachableCallerRecordStore: CallerRecordStore {
        func callerRecords(tokenHash: String) async throws -> CallerRecords? {
            throw StorageError.unavailable("PostgreSQL is unreachable")
        }
    }

    /// `server` with its database made unreachable.
    func unreachable(_ server: TestServer) -> TestServer {
        let healthy = server.services
        var storage = healthy.storage
        storage.ping = { throw StorageError.unavailable("PostgreSQL is unreachable") }
        storage.tokens = UnreachableTokenStore()
        // The caller cache's one-statement read must fail the same way.
        storage.callerRecords = UnreachableCallerRecordStore()
        let services = GatehouseServices(
            configuration: healthy.configuration, storage: storage, clock: healthy.clock, random: healthy.random,
            passwords: healthy.passwords, callbacks: healthy.callbacks, logger: healthy.logger,
            clockControl: healthy.clockControl, callbackTransport: healthy.callbackTransport, metrics: healthy.metrics)
        return TestServer(
            services: services, clock: server.clock, notifier: server.notifier, app: server.app, alice: server.alice,
            bob: server.bob, scratch: server.scratch)
    }

    @Test func healthAndReadinessAnswerPlainTextWhenTheDatabaseAnswers() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for (path, body) in [("/healthz", "ok\n"), ("/readyz", "ready\n")] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .ok)
                #expect(r.text == body)
                #expect(r.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(r.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test func readinessIs503AndLivenessStays200WhileTheDatabaseIsDown() async throws {
        let server = unreachable(try await TestServer.make())
        try await server.run { client in
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.text == "not ready: the database is unavailable\n")
            let live = try await client.execute(uri: "/healthz", method: .get)
            #expect(live.status == .ok)
        }
    }

    @Test func graphCallsGetATransient503WhileTheDatabaseIsDown() async throws {
        let server = unreachable(try await TestServer.make())
        try await server.run { client in
            let r = try await client.execute(uri: "/v27.0/me?access_token=EAAGsomething", method: .get)
            #expect(r.status == .serviceUnavailable)
            #expect(r.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(
                r.text
                    == #"{"error":{"message":"(#2) Service temporarily unavailable","type":"OAuthException","code":2,"is_transient":true}}"#
            )
        }
    }
}
