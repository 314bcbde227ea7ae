import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 27, finding 7: an app token holder cannot create test users without bound, mint listing tokens without
/// bound, or make logins wait behind test-user creation.
@Suite struct TestUserLeverageTests {
    static func create(_ client: any TestClientProtocol, _ server: TestServer, installed: Bool = false) async throws
        -> TestResponse
    {
        try await client.execute(
            uri: "/v27.0/\(server.app.id)/accounts/test-users?installed=\(installed)&access_token=\(server.appToken)",
            method: .post)
    }

    static func expectError(_ r: TestResponse, status: HTTPResponse.Status, message: String, code: Int) {
        #expect(r.status == status)
        #expect(r.json["error"]?["message"]?.stringValue == message)
        #expect(r.json["error"]?["type"]?.stringValue == "OAuthException")
        #expect(r.json["error"]?["code"]?.intValue == Int64(code))
    }

    @Test func anAppHoldsAtMostItsCapOfTestUsers() async throws {
        let server = try await TestServer.make(configure: { $0.limits.testUsersPerApp = 3 })
        try await server.run { client in
            var ids: [String] = []
            for _ in 0..<3 {
                let r = try await Self.create(client, server)
                #expect(r.status == .ok)
                ids.append(try #require(r.json["id"]?.stringValue))
            }
            let fourth = try await Self.create(client, server)
            Self.expectError(fourth, status: .badRequest, message: "(#2900) Too many test accounts", code: 2900)
            #expect(try await server.services.storage.users.testUsers(appID: server.app.id).count == 3)
            // Deleting one makes room again.
            let deleted = try await client.execute(uri: "/\(ids[0])?access_token=\(server.appToken)", method: .delete)
            #expect(deleted.text == #"{"success":true}"#)
            #expect(try await Self.create(client, server).status == .ok)
        }
    }

    @Test func creationIsRateLimitedPerApp() async throws {
        let server = try await TestServer.make(configure: {
            $0.limits.testUserCreationsPerApp = 2; $0.limits.testUserWindowSeconds = 3600
        })
        let other = try await server.services.accounts.createApp(
            name: "Other App", redirectURIs: ["https://other.example/cb"])
        try await server.run { client in
            #expect(try await Self.create(client, server).status == .ok)
            #expect(try await Self.create(client, server).status == .ok)
            let third = try await Self.create(client, server)
            Self.expectError(third, status: .forbidden, message: "(#4) Application request limit reached", code: 4)
            #expect(try await server.services.storage.users.testUsers(appID: server.app.id).count == 2)
            // Another app has its own budget; the next window a fresh one.
            let elsewhere = try await client.execute(
                uri: "/\(other.id)/accounts/test-users?access_token=\(other.id)%7C\(other.secret)", method: .post)
            #expect(elsewhere.status == .ok)
            server.clock.advance(by: 3600)
            #expect(try await Self.create(client, server).status == .ok)
        }
    }

    @Test func listingMintsAtMostTheAppsTokenBudget() async throws {
        let server = try await TestServer.make(configure: { $0.limits.testUserTokensPerApp = 3 })
        try await server.run { client in
            _ = try await Self.create(client, server, installed: true)
            _ = try await Self.create(client, server, installed: true)
            let uri = "/\(server.app.id)/accounts/test-users?access_token=\(server.appToken)"
            let first = try await client.execute(uri: uri, method: .get)
            #expect(first.json["data"]?.arrayValue?.compactMap { $0["access_token"]?.stringValue }.count == 2)
            let second = try await client.execute(uri: uri, method: .get)
            Self.expectError(second, status: .forbidden, message: "(#4) Application request limit reached", code: 4)
        }
    }

    /// The login hasher here lets one hash or verification run at a time, 100 ms each: a one-thread pool at a real
    /// cost. Creations that went through it would queue every login behind the burst (40 × 100 ms).
    @Test func loginsDoNotQueueBehindTestUserCreation() async throws {
        let hasher = OneAtATimePasswordHasher(delay: .milliseconds(100))
        let server = try await TestServer.make(passwords: hasher)
        try await server.run { client in
            // The created test users' passwords work at the login form.
            let made = try await Self.create(client, server)
            let login = try await PasswordForm.settings.submit(
                Browser(client), server: server, email: try #require(made.json["email"]?.stringValue),
                password: try #require(made.json["password"]?.stringValue))
            #expect(login.status == .seeOther)

            let clock = ContinuousClock()
            var start = clock.now
            let alone = try await PasswordForm.settings.submit(
                Browser(client), server: server, email: "alice@example.com", password: "alice-password")
            let unloaded = clock.now - start
            #expect(alone.status == .seeOther)
            let hashesBefore = hasher.hashes
            let loaded = try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<40 { group.addTask { _ = try await Self.create(client, server) } }
                try await Task.sleep(for: .milliseconds(20))
                start = clock.now
                let during = try await PasswordForm.settings.submit(
                    Browser(client), server: server, email: "bob@example.com", password: "bob-password")
                let elapsed = clock.now - start
                #expect(during.status == .seeOther)
                try await group.waitForAll()
                return elapsed
            }
            #expect(hasher.hashes == hashesBefore)
            #expect(loaded < unloaded * 4, "login took \(loaded) during 40 creations, \(unloaded) alone")
        }
    }
}

/// A password hasher that runs one hash or verification at a time, each held `delay` (a one-thread pool).
final class OneAtATimePasswordHasher: PasswordHasher, @unchecked Sendable {
    private let inner = BcryptPasswordHasher(cost: 4)
    private let lock = NSLock()
    private let queue = SerialQueue()
    private var hashed = 0
    let delay: Duration

    init(delay: Duration) { self.delay = delay }

    var hashes: Int { lock.withLock { hashed } }

    func hash(_ password: String) async throws -> String {
        lock.withLock { hashed += 1 }
        return try await queue.run(delay) { try await self.inner.hash(password) }
    }
    func dummyHash() async throws -> String { try await inner.dummyHash() }
    func verify(_ password: String, hash: String) async throws -> Bool {
        try await queue.run(delay) { try await self.inner.verify(password, hash: hash) }
    }
}

/// Runs one job at a time, first come first served.
private actor SerialQueue {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ delay: Duration, _ job: @Sendable () async throws -> T) async throws -> T {
        if busy { await withCheckedContinuation { waiting.append($0) } } else { busy = true }
        defer { if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() } }
        try await Task.sleep(for: delay)
        return try await job()
    }
}
