import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The node's apps by id: the token endpoint, dialogs and consent read an app without a database round trip, and
/// every app write (here, on another node, or by another process on the same SQLite file) is seen.
@Suite("App cache")
struct AppCacheTests {
    /// `storage.apps` with a fresh cache over a counting store, as `SQLStorage.make` builds it.
    static func cached(_ storage: Storage) -> (InvalidatingAppStore, AppCache, ReadCounter) {
        let reads = ReadCounter()
        let cache = AppCache()
        let base = (storage.apps as? InvalidatingAppStore)?.base ?? storage.apps
        let store = InvalidatingAppStore(
            base: CountingAppStore(base: base, reads: reads), cache: cache, caches: cache,
            publisher: LocalTokenInvalidation())
        return (store, cache, reads)
    }

    @Test func aKnownAppIsReadOnceAndAnUnknownOneEveryTime() async throws {
        try await withEachBackend { storage in
            let (apps, _, reads) = Self.cached(storage)
            try await storage.apps.create(Fixture.app("A"))
            for _ in 0..<5 { #expect(try await apps.find(id: "A")?.name == "App A") }
            #expect(reads.value == 1)
            #expect(try await apps.find(id: "B") == nil)
            try await storage.apps.create(Fixture.app("B"))
            #expect(try await apps.find(id: "B")?.name == "App B", "a missing app is never cached")
        }
    }

    @Test(arguments: ["settings", "secret reset", "role"])
    func aWriteOnThisNodeIsSeenAtOnce(_ write: String) async throws {
        try await withEachBackend { storage in
            let (apps, cache, reads) = Self.cached(storage)
            try await apps.create(Fixture.app("A"))
            try await storage.users.create(Fixture.user("1"))
            _ = try await apps.find(id: "A")
            var app = try #require(try await apps.find(id: "A"))
            #expect(reads.value == 1 && cache.contains("A"))
            switch write {
            case "settings": app.redirectURIs = ["https://example.com/other"]; try await apps.update(app)
            case "secret reset": app.secret = "rotated"; try await apps.update(app)
            default: try await apps.setRole(appID: "A", userID: "1", role: .developer)
            }
            #expect(!cache.contains("A"))
            let after = try #require(try await apps.find(id: "A"))
            #expect(reads.value == 2)
            switch write {
            case "settings": #expect(after.redirectURIs == ["https://example.com/other"])
            case "secret reset": #expect(after.secret == "rotated")
            default: #expect(try await apps.role(appID: "A", userID: "1") == .developer)
            }
        }
    }

    /// Two nodes on one database (SQLite: two connections, as the CLI and the server; PostgreSQL: two pools with
    /// their own listeners): an app changed on A is seen on B, through B's cache.
    @Test func anAppChangedOnOneNodeIsSeenByTheOther() async throws {
        try await withEachReopenableBackend { open in
            let a = try await open()
            let b = try await open()
            let cacheB = try #require((b.apps as? InvalidatingAppStore)?.cache)
            try await waitUntil { cacheB.isEnabled }
            try await a.apps.create(Fixture.app("A"))
            try await waitUntil { try await b.apps.find(id: "A") != nil && cacheB.contains("A") }
            var app = try #require(try await a.apps.find(id: "A"))
            app.secret = "rotated-on-a"
            try await a.apps.update(app)
            try await waitUntil { try await b.apps.find(id: "A")?.secret == "rotated-on-a" }
            try await a.shutdown()
            try await b.shutdown()
        }
    }
}
