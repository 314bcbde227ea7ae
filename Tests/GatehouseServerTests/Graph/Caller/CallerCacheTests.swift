import Foundation
import GatehouseProtocol
import NIOConcurrencyHelpers
import Testing
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport

/// The per-node cache of resolved callers: a known token reads no database, every write that changes what the
/// caller sees drops it (on this node at once, on another node soon), and time is judged on every request.
@Suite("Resolved caller cache")
struct CallerCacheTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aKnownTokenIsResolvedFromTheCacheWithTheSameAnswer() async throws {
        try await withEachBackend { storage in
            let cache = try #require(storage.callerCache)
            try await waitUntil { cache.isEnabled }
            let reads = ReadCounter()
            var counted = storage
            counted.apps = CountingAppStore(base: storage.apps, reads: reads)
            let services = callerServices(counted, clock: AdjustableClock(fixed: Self.now))
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            let first = try await services.tokens.resolve(c.text)
            try await settle(cache, c.text, services)
            let afterMiss = reads.value
            for _ in 0..<3 {
                let again = try await services.tokens.resolve(c.text)
                #expect(again.user?.user.email == first.user?.user.email)
                #expect(again.user?.scopedID == first.user?.scopedID)
                #expect(again.user?.grant.granted == first.user?.grant.granted)
                #expect(again.user?.token == first.user?.token)
            }
            #expect(reads.value == afterMiss, "hits read no app")
            #expect(try await services.tokens.resolve(c.appToken).isApp)
            #expect(reads.value == afterMiss + 1, "the app token's miss reads its app")
            #expect(try await services.tokens.resolve(c.appToken).isApp)
            #expect(reads.value == afterMiss + 1, "then it is a hit")
            #expect(cache.contains(SecretHash.sha256Hex(c.appToken)))
            #expect(cache.count == 2)
            // Garbage and unknown tokens are never cached.
            #expect(try await services.tokens.resolve("EAAGnope").error == .invalidTokenFormat)
            #expect(try await services.tokens.resolve("EAAGnope").error == .invalidTokenFormat)
            #expect(cache.count == 2)
        }
    }

    @Test func theCachedPersonKeepsWhetherTheyHaveAPictureButNotItsBytes() async throws {
        try await withEachBackend { storage in
            let services = callerServices(storage, clock: AdjustableClock(fixed: Self.now))
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            var user = try #require(try await storage.users.find(id: c.user.id))
            user.picture = Data(repeating: 7, count: 4096)
            try await storage.users.update(user)
            // Neither the joined miss path nor the cache carries the bytes; both keep that there is a picture.
            #expect(try await services.tokens.resolve(c.text).user?.user.picture?.count == 0)
            try await settle(try #require(storage.callerCache), c.text, services)
            #expect(try await services.tokens.resolve(c.text).user?.user.picture?.count == 0)
            user.picture = nil
            try await storage.users.update(user)
            #expect(try await services.tokens.resolve(c.text).user?.user.picture == nil)
        }
    }

    @Test func noCallerCarriesThePersonsPasswordHash() async throws {
        try await withEnabledCallerCache(now: Self.now) { storage, cache, services, c in
            #expect(try await storage.users.find(id: c.user.id)?.passwordHash.isEmpty == false)
            // The miss and then the hit: neither holds the hash, and both answer alike otherwise.
            let miss = try #require(try await services.tokens.resolve(c.text).user)
            try await settle(cache, c.text, services)
            let hit = try #require(try await services.tokens.resolve(c.text).user)
            #expect(miss.user.passwordHash == "")
            #expect(hit.user == miss.user)
            // Logging in still reads the stored hash.
            #expect(try await storage.users.find(id: c.user.id)?.passwordHash.isEmpty == false)
        }
    }

    /// Each write kind on the node holding the cache: seen by the very next request.
    @Test(arguments: CallerWrite.all.map(\.name))
    func aWriteOnThisNodeIsSeenAtOnce(_ name: String) async throws {
        let change = try #require(CallerWrite.all.first { $0.name == name })
        try await withEnabledCallerCache(now: Self.now) { storage, cache, services, c in
            let presented = change.viaAppToken ? c.appToken : c.text
            let before = try await services.tokens.resolve(presented)
            #expect(!change.seen(before, c))
            try await settle(cache, presented, services)
            try await change.write(storage, c, Self.now)
            #expect(change.seen(try await services.tokens.resolve(presented), c), "\(name)")
        }
    }

    /// Each write kind on node A, with B holding the caller: B sees it without being told by this test
    /// (SQLite: another connection, caught through `PRAGMA data_version`; PostgreSQL: `NOTIFY`).
    @Test func aWriteOnAnotherNodeIsSeenForEveryKind() async throws {
        try await withEachReopenableBackend { open in
            let a = try await open()
            let b = try await open()
            let cacheB = try #require(b.callerCache)
            try await waitUntil { cacheB.isEnabled }
            let servicesB = callerServices(b, clock: AdjustableClock(fixed: Self.now))
            for (n, change) in CallerWrite.all.enumerated() {
                let c = try await CallerScenario.make(n, on: a, now: Self.now)
                let presented = change.viaAppToken ? c.appToken : c.text
                #expect(!change.seen(try await servicesB.tokens.resolve(presented), c), "\(change.name)")
                // B holds the caller (on SQLite, once its watcher has seen A's set-up writes).
                let key = SecretHash.sha256Hex(presented)
                try await waitUntil {
                    _ = try await servicesB.tokens.resolve(presented); return cacheB.contains(key)
                }
                try await change.write(a, c, Self.now)
                try await waitUntil { change.seen(try await servicesB.tokens.resolve(presented), c) }
            }
            try await a.shutdown()
            try await b.shutdown()
        }
    }

    /// Time is never cached: the same cached facts give a different verdict once the clock moves.
    @Test func expiryAndTheNinetyDayDataAccessAreJudgedOnTheClockAtEachRequest() async throws {
        try await withEachBackend { storage in
            let clock = AdjustableClock(fixed: Self.now)
            let services = callerServices(storage, clock: clock)
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            try await storage.tokens.setExpiry(id: c.token.id, expiresAt: nil)
            #expect(try await services.tokens.resolve(c.text).user?.has("email") == true)
            try await settle(try #require(storage.callerCache), c.text, services)
            clock.advance(by: Lifetimes.dataAccess + 1)
            let later = try await services.tokens.resolve(c.text)
            #expect(later.user?.has("email") == false)
            #expect(later.user?.isDataAccessExpired == true)

            let d = try await CallerScenario.make(2, on: storage, now: clock.now())
            #expect(try await services.tokens.resolve(d.text).user != nil)
            clock.advance(by: 3600)
            #expect(try await services.tokens.resolve(d.text).error?.errorSubcode == 463)
            clock.advance(by: -7200)
            #expect(try await services.tokens.resolve(d.text).user != nil, "moving the clock back revives the token")
        }
    }

    @Test func injectedErrorsApplyToACachedCaller() async throws {
        try await withEachBackend { storage in
            let services = callerServices(storage, clock: AdjustableClock(fixed: Self.now))
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            let caller = try await services.tokens.resolve(c.text).get()
            _ = try await services.tokens.resolve(c.text)
            #expect(try await ErrorInjector(services: services).check(caller) == nil)
            _ = try await ErrorInjector(services: services).add(
                kind: .token, target: c.text, error: "190/460", times: 1)
            let cached = try await services.tokens.resolve(c.text).get()
            #expect(try await ErrorInjector(services: services).check(cached)?.errorSubcode == 460)
            #expect(try await ErrorInjector(services: services).check(cached) == nil)
        }
    }

    @Test func aResolutionRacingAWriteDoesNotStoreItsStaleFacts() async throws {
        try await withEachBackend { storage in
            let cache = try #require(storage.callerCache)
            try await waitUntil { cache.isEnabled }
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            // The app is renamed while the app token is being resolved (between its start and its store).
            struct RacingAppStore: AppStore {
                let base: any AppStore
                let during: @Sendable () async throws -> Void
                func create(_ app: AppRecord) async throws { try await base.create(app) }
                func find(id: String) async throws -> AppRecord? {
                    let app = try await base.find(id: id)
                    try await during()
                    return app
                }
                func list() async throws -> [AppRecord] { try await base.list() }
                func update(_ app: AppRecord) async throws { try await base.update(app) }
                func setRole(appID: String, userID: String, role: AppRole?) async throws {}
                func role(appID: String, userID: String) async throws -> AppRole? { nil }
                func roles(appID: String) async throws -> [(userID: String, role: AppRole)] { [] }
            }
            var racing = storage
            racing.apps = RacingAppStore(base: storage.apps) {
                var app = c.app
                app.name = "Renamed during the read"
                try await storage.apps.update(app)
            }
            let services = callerServices(racing, clock: AdjustableClock(fixed: Self.now))
            let stale = try await services.tokens.resolve(c.appToken)
            #expect(stale.isApp)
            #expect(cache.count == 0, "the app read before the rename was not kept")
            let plain = callerServices(storage, clock: AdjustableClock(fixed: Self.now))
            guard case .success(.app(let app)) = try await plain.tokens.resolve(c.appToken) else {
                Issue.record("the app token no longer resolves")
                return
            }
            #expect(app.name == "Renamed during the read")
        }
    }

    @Test func aDisabledCacheServesNothing() async throws {
        try await withEnabledCallerCache(now: Self.now) { storage, cache, services, c in
            try await settle(cache, c.text, services)
            cache.setEnabled(false)
            #expect(cache.count == 0)
            _ = try await services.tokens.resolve(c.text)
            #expect(cache.count == 0)
            cache.setEnabled(true)
        }
    }
}

/// Resolves `text` until its caller is cached and stays cached over a few checks. On PostgreSQL a node hears
/// its own writes back as notifications a moment later, which drop the entry once more (harmlessly); tests
/// that count database reads wait for those echoes first.
func settle(_ cache: CallerCache, _ text: String, _ services: GatehouseServices) async throws {
    let key = SecretHash.sha256Hex(text)
    var stable = 0
    try await waitUntil(seconds: 10) {
        _ = try await services.tokens.resolve(text)
        stable = cache.contains(key) ? stable + 1 : 0
        if stable < 5 { try await Task.sleep(for: .milliseconds(40)) }
        return stable >= 5
    }
}
