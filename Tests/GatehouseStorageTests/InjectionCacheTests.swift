import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The node's copy of the injected errors: a Graph call with nothing injected reads no database, and every
/// injection write (here, on another node, or by another process on the same SQLite file) is seen.
@Suite("Injected-error cache")
struct InjectionCacheTests {
    /// An emulator store in memory that counts whole-table reads and can run a write in the middle of one.
    final class CountingEmulatorStore: EmulatorStore, @unchecked Sendable {
        private let lock = NSLock()
        private var rows: [InjectedErrorRecord] = []
        private(set) var reads = 0
        var duringRead: (@Sendable () async throws -> Void)?

        func insertInjection(_ injection: InjectedErrorRecord) async throws { lock.withLock { rows.append(injection) } }
        func injections() async throws -> [InjectedErrorRecord] {
            let snapshot = lock.withLock {
                reads += 1; return rows
            }
            if let duringRead { self.duringRead = nil; try await duringRead() }
            return snapshot
        }
        func injections(targets: [(InjectionTargetKind, String)]) async throws -> [InjectedErrorRecord] {
            try await injections().filter { row in targets.contains { $0.0 == row.targetKind && $0.1 == row.targetID } }
        }
        func consumeInjection(id: String) async throws -> Bool {
            lock.withLock {
                guard let i = rows.firstIndex(where: { $0.id == id }) else { return false }
                guard let left = rows[i].remaining else { return true }
                if left <= 1 { rows.remove(at: i) } else { rows[i].remaining = left - 1 }
                return true
            }
        }
        func deleteInjection(id: String) async throws -> Bool {
            lock.withLock {
                rows.count
                    != {
                        rows.removeAll { $0.id == id }; return rows.count
                    }()
            }
        }
        func deleteAllInjections() async throws { lock.withLock { rows.removeAll() } }
        func setting(_ name: String) async throws -> String? { nil }
        func setSetting(_ name: String, _ value: String?) async throws {}
        func replaceAll(with state: StoredState) async throws { lock.withLock { rows = state.injections } }
        func insertAll(_ state: StoredState) async throws { lock.withLock { rows += state.injections } }
    }

    static func injection(_ id: String, app: String = "A", times: Int? = 1, at offset: TimeInterval = 0)
        -> InjectedErrorRecord
    {
        InjectedErrorRecord(
            id: id, targetKind: .app, targetID: app, code: 190, subcode: 460, remaining: times,
            createdAt: TestTime.at(offset))
    }

    static func cached(_ base: CountingEmulatorStore, cache: InjectionCache = InjectionCache()) -> CachingEmulatorStore
    {
        CachingEmulatorStore(base: base, injectionCache: cache, caches: cache, publisher: LocalTokenInvalidation())
    }

    @Test func callsWithNothingInjectedReadTheTableOnce() async throws {
        let base = CountingEmulatorStore()
        let store = Self.cached(base)
        for _ in 0..<50 {
            #expect(try await store.injections(targets: [(.app, "A"), (.user, "1"), (.token, "t")]).isEmpty)
        }
        #expect(base.reads == 1)
    }

    /// Every injection write made through this node is seen by the next call, without waiting.
    @Test(arguments: [
        "insert", "consume the last count", "consume one of two counts", "delete", "delete all", "erase all",
    ])
    func aWriteOnThisNodeIsSeenAtOnce(_ write: String) async throws {
        let base = CountingEmulatorStore()
        let store = Self.cached(base)
        if write != "insert" {
            try await base.insertInjection(Self.injection("i1", times: write == "consume one of two counts" ? 2 : 1))
        }
        let before = try await store.injections(targets: [(.app, "A")])
        switch write {
        case "insert": try await store.insertInjection(Self.injection("i1"))
        case "consume the last count", "consume one of two counts": #expect(try await store.consumeInjection(id: "i1"))
        case "delete": #expect(try await store.deleteInjection(id: "i1"))
        case "delete all": try await store.deleteAllInjections()
        default: try await store.eraseAll()
        }
        let after = try await store.injections(targets: [(.app, "A")])
        switch write {
        case "insert": #expect(before.isEmpty && after.map(\.id) == ["i1"])
        case "consume one of two counts": #expect(before.first?.remaining == 2 && after.first?.remaining == 1)
        default: #expect(before.map(\.id) == ["i1"] && after.isEmpty)
        }
    }

    /// An injection "until cleared" is not written to when used, so using it keeps the copy.
    @Test func usingAnUncountedInjectionKeepsTheCopy() async throws {
        let base = CountingEmulatorStore()
        try await base.insertInjection(Self.injection("forever", times: nil))
        let store = Self.cached(base)
        for _ in 0..<5 {
            let hit = try #require(try await store.injections(targets: [(.app, "A")]).first)
            #expect(try await store.consumeInjection(id: hit.id))
        }
        #expect(base.reads == 1)
    }

    @Test func theCopyKeepsTheTablesOrderAndOnlyTheTargetsAsked() async throws {
        let base = CountingEmulatorStore()
        try await base.insertInjection(Self.injection("old", at: 0))
        try await base.insertInjection(Self.injection("other", app: "B", at: 1))
        try await base.insertInjection(
            InjectedErrorRecord(
                id: "user", targetKind: .user, targetID: "A", code: 4, subcode: nil, remaining: nil,
                createdAt: TestTime.at(2)))
        try await base.insertInjection(Self.injection("new", at: 3))
        let store = Self.cached(base)
        #expect(try await store.injections(targets: [(.app, "A")]).map(\.id) == ["old", "new"])
        #expect(try await store.injections(targets: [(.user, "A"), (.app, "B")]).map(\.id) == ["other", "user"])
        #expect(try await store.injections(targets: []).isEmpty)
    }

    @Test func aReadRacingAnInsertDoesNotStoreTheOldTable() async throws {
        let base = CountingEmulatorStore()
        let store = Self.cached(base)
        base.duringRead = { try await store.insertInjection(Self.injection("raced")) }
        #expect(try await store.injections(targets: [(.app, "A")]).isEmpty, "the read began before the insert")
        #expect(try await store.injections(targets: [(.app, "A")]).map(\.id) == ["raced"])
    }

    @Test func aDisabledCacheReadsEveryTimeAndOtherEventsLeaveTheCopy() async throws {
        let base = CountingEmulatorStore()
        let cache = InjectionCache()
        let store = Self.cached(base, cache: cache)
        _ = try await store.injections()
        for event: TokenInvalidation in [.token(id: "t"), .user(id: "1"), .app(id: "A"), .signingKeys, .code(id: "c")] {
            cache.invalidate(event)
        }
        _ = try await store.injections()
        #expect(base.reads == 1)
        cache.setEnabled(false)
        _ = try await store.injections()
        _ = try await store.injections()
        #expect(base.reads == 3)
        #expect(!cache.isCached)
    }

    @Test func payloadRoundTrips() {
        #expect(TokenInvalidation.injections.payload == "injections")
        #expect(TokenInvalidation(payload: "injections") == .injections)
        #expect(TokenInvalidation(payload: "injections:x") == .all)
    }

    /// Two nodes on one database (SQLite: two connections, as the CLI and the server; PostgreSQL: two pools
    /// with their own listeners): an injection added on A applies on B, and once used up on A stops on B.
    @Test func anInjectionOnOneNodeIsSeenByTheOther() async throws {
        try await withEachReopenableBackend { open in
            let a = try await open()
            let b = try await open()
            let cacheB = try #require((b.emulator as? CachingEmulatorStore)?.injectionCache)
            try await waitUntil { cacheB.isEnabled }
            try await a.apps.create(Fixture.app("A"))
            try await waitUntil { try await b.emulator.injections(targets: [(.app, "A")]).isEmpty && cacheB.isCached }

            try await a.emulator.insertInjection(Self.injection("i1", times: 1))
            try await waitUntil { try await b.emulator.injections(targets: [(.app, "A")]).map(\.id) == ["i1"] }
            // Read again until B holds the new table: a read that raced the invalidation returns it but keeps nothing.
            try await waitUntil {
                _ = try await b.emulator.injections(); return cacheB.isCached
            }
            #expect(try await a.emulator.consumeInjection(id: "i1"))
            try await waitUntil { try await b.emulator.injections(targets: [(.app, "A")]).isEmpty }
            #expect(try await !b.emulator.consumeInjection(id: "i1"), "the last count went to A")
            try await a.shutdown()
            try await b.shutdown()
        }
    }
}
