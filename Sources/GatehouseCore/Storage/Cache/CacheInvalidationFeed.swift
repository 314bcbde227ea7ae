/// The background work that keeps a node's caches true to writes made outside this process: another process on
/// the same SQLite file, another node on the same PostgreSQL database.
///
/// A node's caches are on only while its feed runs and can vouch for them: storage opens with them off, the feed
/// switches them on once it is watching, and off again whenever it cannot see (a lost connection, a failed poll)
/// and when it stops. Storage never starts its feed by itself. The server runs it as a service of its service
/// group, beside the HTTP server, so it starts and stops with everything else; code that opens storage for a
/// moment (a CLI command) simply reads the database every time.
package protocol CacheInvalidationFeed: Sendable {
    /// Watches until the calling task is cancelled, then returns with the caches off.
    func run() async
}

extension Storage {
    /// Runs `body` with this storage's invalidation feed running beside it (and so its caches on once the feed
    /// is watching), then stops the feed. Without a feed it just runs `body`.
    package func withInvalidationFeed<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let feed = invalidationFeed else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await feed.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}
