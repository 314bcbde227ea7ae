import GatehouseCore

extension Storage {
    /// This storage with its ``CacheInvalidationFeed`` running in the background, stopped by `shutdown` before
    /// the connections close, as the server's service group runs it. For tests that open storage themselves
    /// and expect the node's caches to work.
    package func runningFeed() -> Storage {
        guard let feed = invalidationFeed else { return self }
        let running = Task { await feed.run() }
        var storage = self
        let close = shutdown
        storage.shutdown = {
            running.cancel()
            await running.value
            try await close()
        }
        return storage
    }
}
