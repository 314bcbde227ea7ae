import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Storage opens with its caches off; only its running feed (the SQLite change watcher, the PostgreSQL
/// listener) turns them on, and they go off again when it stops, whoever runs it.
@Suite("Cache invalidation feed")
struct CacheInvalidationFeedTests {
    @Test func cachesAreOffUntilTheFeedRunsAndOffAgainOnceItStops() async throws {
        for backend in StorageBackends.all(fromTemplate: true) {
            let storage = try await backend.openWithoutFeed()
            let caches: [(String, @Sendable () -> Bool)] = [
                ("tokens", { (storage.tokens as? CachingTokenStore)?.cache.isEnabled ?? false }),
                ("callers", { storage.callerCache?.isEnabled ?? false }),
            ]
            for (name, isEnabled) in caches {
                #expect(!isEnabled(), "\(backend.name): \(name) cache on before the feed runs")
            }
            #expect(storage.invalidationFeed != nil)
            try await storage.withInvalidationFeed {
                for (_, isEnabled) in caches { try await waitUntil { isEnabled() } }
            }
            for (name, isEnabled) in caches {
                #expect(!isEnabled(), "\(backend.name): \(name) cache still on after the feed stopped")
            }
            try await storage.shutdown()
            try await backend.cleanup()
        }
    }
}
