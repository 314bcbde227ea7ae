import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Hummingbird
import HummingbirdTesting
import PostgresKit
import Testing
import GatehouseTestSupport

/// Issue 27, finding 3: a revocation and its announcement to the other nodes are one write. Two nodes share one
/// PostgreSQL database; node A connects as a role of its own, so its `pg_notify` can be made to fail for real
/// (`REVOKE EXECUTE … FROM PUBLIC`; the cluster's default user is a superuser, which privileges do not bind).
/// While it fails, A's revocation fails whole and node B, which has the token cached, agrees with the database.
@Suite("Revocation announced with its write (PostgreSQL)", .timeLimit(.minutes(10)))
struct RevocationAnnouncementTests {
    @Test func aRevocationWhoseNotifyFailsFailsWholeAndTheOtherNodeAgreesWithTheDatabase() async throws {
        try await withTwoNodes { a, b, database in
            let c = try await CallerScenario.make(1, on: a.storage, now: CallerCacheTests.now)
            let me = "/me?fields=id,first_name&access_token=\(c.text)"
            try await withApplication(a.services) { nodeA in
                try await withApplication(b.services) { nodeB in
                    let served = try await nodeB.execute(uri: me, method: .get)
                    #expect(served.status == .ok)
                    // B now serves the token from its cache (300 s from expiry): only a notification can change that.
                    try await settle(b.cache, c.text, b.services)

                    // A cannot announce: the revocation must not happen at all.
                    try await database.sql {
                        try await $0.raw("REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC").run()
                    }
                    let refused = try await nodeA.execute(
                        uri: "/me/permissions?access_token=\(c.text)", method: .delete)
                    #expect(refused.status == .serviceUnavailable)
                    #expect(refused.json["error"]?["code"]?.intValue == 2)
                    #expect(refused.json["error"]?["message"]?.stringValue == "(#2) Service temporarily unavailable")
                    #expect(refused.json["error"]?["is_transient"]?.boolValue == true)
                    // Nor may a transaction's write (the consent path) commit without its announcement.
                    await #expect(throws: StorageError.self) {
                        try await a.storage.transaction { tx in
                            try await tx.grants.delete(appID: c.app.id, userID: c.user.id)
                        }
                    }
                    let stored = try await database.state(token: c.token.id, app: c.app.id, user: c.user.id)
                    #expect(stored.revoked == false, "the revocation committed although no node was told")
                    #expect(stored.granted == true, "the grant was removed although no node was told")
                    let stillServed = try await nodeB.execute(uri: me, method: .get)
                    #expect(stillServed.status == .ok)
                    #expect(stillServed.text == served.text)

                    // Once A can announce again, its revocation reaches B's cache through the notification.
                    try await database.sql {
                        try await $0.raw("GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO PUBLIC").run()
                    }
                    let removed = try await nodeA.execute(
                        uri: "/me/permissions?access_token=\(c.text)", method: .delete)
                    #expect(removed.status == .ok)
                    #expect(removed.json["success"]?.boolValue == true)
                    let revokedAt = ContinuousClock.now
                    var refusedAfter: Duration?
                    // Searched for up to 30 s, so a miss reports how late it was. The issue's bound is one second
                    // (measured: 3–5 ms); the cache's own expiry is 300 s away, so any refusal is the notification's.
                    try await waitUntil(seconds: 30) {
                        let reply = try await nodeB.execute(uri: me, method: .get)
                        guard reply.json["error"]?["code"]?.intValue == 190 else { return false }
                        #expect(reply.status == .badRequest)
                        refusedAfter = ContinuousClock.now - revokedAt
                        return true
                    }
                    print(
                        "issue 27 finding 3: node B refused the token \(refusedAfter.map { "\($0)" } ?? "never") after node A's revocation"
                    )
                    #expect(try #require(refusedAfter) < .seconds(1))
                    #expect(try await database.state(token: c.token.id, app: c.app.id, user: c.user.id).revoked)
                }
            }
        }
    }
}

extension RevocationAnnouncementTests {
    /// One node: its storage (with its feed running), services on a fixed clock, and its caller cache.
    struct Node: Sendable {
        let storage: Storage
        let services: GatehouseServices
        var cache: CallerCache { storage.callerCache! }
    }

    /// The test's database, reached as the cluster's superuser.
    struct Database: Sendable {
        let url: String

        func sql(_ body: (any SQLDatabase) async throws -> Void) async throws {
            try await PostgresTestDatabase.withAdminConnection(url, body)
        }

        /// Whether the token is revoked and the grant still exists, as the database says.
        func state(token: String, app: String, user: String) async throws -> (revoked: Bool, granted: Bool) {
            var state = (revoked: false, granted: false)
            try await sql { db in
                let revokedAt = try await db.raw("SELECT revoked_at FROM tokens WHERE id = \(bind: token)")
                    .first(decodingColumn: "revoked_at", as: Int64?.self)
                state.revoked = (revokedAt ?? nil) != nil
                state.granted =
                    try await db.raw(
                        "SELECT 1 AS one FROM grants WHERE app_id = \(bind: app) AND user_id = \(bind: user)"
                    )
                    .first() != nil
            }
            return state
        }
    }

    /// Node A as a login role that owns a fresh database (so it migrates it), node B as the superuser; both
    /// caches on. The database and the role are dropped afterwards, whether `body` passed or not.
    func withTwoNodes(_ body: (Node, Node, Database) async throws -> Void) async throws {
        let url = try await PostgresTestDatabase.create()
        let name = URL(string: url)!.lastPathComponent
        let role = "gh_role_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let password = "node-a-\(UUID().uuidString.prefix(8))"
        var components = URLComponents(string: url)!
        components.user = role
        components.password = password
        let roleURL = components.string!
        let admin = try PostgresTestDatabase.adminURL()
        func cleanUp() async {
            try? await PostgresTestDatabase.drop(url)
            try? await PostgresTestDatabase.withAdminConnection(admin) {
                try await $0.raw("DROP ROLE IF EXISTS \(ident: role)").run()
            }
        }
        do {
            try await PostgresTestDatabase.withAdminConnection(admin) { db in
                try await db.raw("CREATE ROLE \(ident: role) LOGIN PASSWORD \(unsafeRaw: "'\(password)'")").run()
                try await db.raw("ALTER DATABASE \(ident: name) OWNER TO \(ident: role)").run()
            }
            try await Database(url: url).sql { try await $0.raw("GRANT ALL ON SCHEMA public TO \(ident: role)").run() }
            let options = PostgresStorage.Options(maximumConnections: 4)
            let a = try await PostgresStorage.open(url: roleURL, logger: StorageBackends.logger, options: options)
                .runningFeed()
            let b = try await PostgresStorage.open(url: url, logger: StorageBackends.logger, options: options)
                .runningFeed()
            do {
                let nodes = [a, b].map {
                    Node(storage: $0, services: callerServices($0, clock: AdjustableClock(fixed: CallerCacheTests.now)))
                }
                for node in nodes { try await waitUntil { node.cache.isEnabled } }
                try await body(nodes[0], nodes[1], Database(url: url))
            } catch {
                try? await a.shutdown()
                try? await b.shutdown()
                throw error
            }
            try await a.shutdown()
            try await b.shutdown()
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    /// Runs `body` against the node's routes in-process.
    func withApplication(
        _ services: GatehouseServices, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let pages = try await PageRenderer.load(devMode: services.configuration.isDevelopment)
        let application = Application(
            router: GatehouseApp.router(services: services, pages: pages),
            server: try GatehouseApp.serverBuilder(services.configuration),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: services.logger)
        try await application.test(.router, body)
    }
}
