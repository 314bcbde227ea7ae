import Foundation
import PostgresKit
import Testing
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport

/// The resolved caller cache on a node that cannot hear the other nodes (PostgreSQL only).
@Suite("Resolved caller cache without a listener", .timeLimit(.minutes(10)))
struct CallerCachePostgresTests {
    @Test func aNodeThatLosesItsListenerServesNoCachedCaller() async throws {
        let url = try await PostgresTestDatabase.create()
        do {
            let a = try await PostgresStorage.open(
                url: url, logger: StorageBackends.logger, options: .init(maximumConnections: 4)
            ).runningFeed()
            let cache = try #require(a.callerCache)
            try await waitUntil { cache.isEnabled }
            let services = callerServices(a, clock: AdjustableClock(fixed: CallerCacheTests.now))
            let c = try await CallerScenario.make(1, on: a, now: CallerCacheTests.now)
            #expect(try await services.tokens.resolve(c.text).user?.user.firstName == c.user.firstName)
            try await settle(cache, c.text, services)
            // Cut every connection of this database (the listener's too), then change the person behind the
            // node's back: no NOTIFY is sent, yet the node must not answer from its cache.
            try await PostgresTestDatabase.withAdminConnection(try PostgresTestDatabase.adminURL()) { db in
                let name = URL(string: url)!.lastPathComponent
                try await db.raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(bind: name)")
                    .run()
            }
            try await waitUntil { !cache.isEnabled || cache.count == 0 }
            try await PostgresTestDatabase.withAdminConnection(url) { db in
                try await db.raw("UPDATE users SET first_name = 'Behind' WHERE id = \(bind: c.user.id)").run()
            }
            var seen: String?
            for _ in 0..<3 {
                seen = try? await services.tokens.resolve(c.text).user?.user.firstName
                if seen == "Behind" { break }
            }
            #expect(seen == "Behind")
            try await waitUntil { cache.isEnabled }
            try await a.shutdown()
        } catch {
            try? await PostgresTestDatabase.drop(url)
            throw error
        }
        try await PostgresTestDatabase.drop(url)
    }
}
