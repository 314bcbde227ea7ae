import Foundation
import GatehouseProtocol
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The node's in-memory signing keys: signing reads no database, and a rotation anywhere is seen.
@Suite("Signing key cache")
struct SigningKeyCacheTests {
    /// A `SigningKeyStore` in memory that counts reads, standing in for the database.
    final class CountingKeyStore: SigningKeyStore, @unchecked Sendable {
        let lock = NSLock()
        var keys: [SigningKeyRecord] = []
        var reads = 0
        func insert(_ key: SigningKeyRecord) async throws { lock.withLock { keys.append(key) } }
        func all() async throws -> [SigningKeyRecord] {
            lock.withLock {
                reads += 1; return keys
            }
        }
        func retire(kid: String, at: Date, publishUntil: Date) async throws {
            lock.withLock {
                for i in keys.indices where keys[i].kid == kid && keys[i].retiredAt == nil {
                    keys[i].retiredAt = at
                    keys[i].publishUntil = publishUntil
                }
            }
        }
        var readCount: Int { lock.withLock { reads } }
    }

    let claims = IDTokenClaims(
        iss: "http://gatehouse.test", aud: "A", sub: "1", iat: 1_800_000_000, exp: 4_000_000_000, jti: "j", nonce: nil)

    static func kid(of jwt: String) -> String? {
        let header = jwt.split(separator: ".").first.map(String.init) ?? ""
        guard let data = Base64URL.decode(header),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }

    @Test func signingReadsTheStoreOnceAndARotationOnTheSameNodeIsUsedAtOnce() async throws {
        let base = CountingKeyStore()
        let store = CachingSigningKeyStore(base: base, cache: SigningKeyCache(), publisher: LocalTokenInvalidation())
        let ring = KeyRing(store: store, clock: AdjustableClock(fixed: TestTime.base))
        let first = try await ring.sign(claims)
        let reads = base.readCount
        for _ in 0..<5 { _ = try await ring.sign(claims) }
        _ = try await ring.publishedKeys()
        #expect(base.readCount == reads, "signing and publishing read no database once the keys are cached")

        let rotated = try await ring.rotate(grace: 60)
        let next = try await ring.sign(claims)
        #expect(Self.kid(of: next) == rotated.kid)
        #expect(Self.kid(of: first) != rotated.kid)
        #expect(try await ring.publishedKeys().map(\.kid).count == 2)
    }

    @Test func theGracePeriodIsJudgedOnTheClockNotCached() async throws {
        let clock = AdjustableClock(fixed: TestTime.base)
        let store = CachingSigningKeyStore(
            base: CountingKeyStore(), cache: SigningKeyCache(), publisher: LocalTokenInvalidation())
        let ring = KeyRing(store: store, clock: clock)
        _ = try await ring.activeKey()
        try await ring.rotate(grace: 60)
        #expect(try await ring.publishedKeys().count == 2)
        clock.advance(by: 61)
        #expect(try await ring.publishedKeys().count == 1)
    }

    @Test func aReadRacingARotationDoesNotStoreTheOldKeys() async throws {
        let cache = SigningKeyCache()
        let key = try KeyRing.makeKey(now: TestTime.base)
        _ = try await cache.keys {
            cache.invalidate(.signingKeys)
            return [key]
        }
        #expect(!cache.isCached)
        _ = try await cache.keys { [key] }
        #expect(cache.isCached)
        cache.invalidate(.token(id: "t1"))
        #expect(cache.isCached, "token events leave the keys alone")
        cache.invalidate(.all)
        #expect(!cache.isCached)
    }

    @Test func anEmptyTableAndADisabledCacheKeepNothing() async throws {
        let cache = SigningKeyCache()
        _ = try await cache.keys { [] }
        #expect(!cache.isCached)
        let key = try KeyRing.makeKey(now: TestTime.base)
        cache.setEnabled(false)
        _ = try await cache.keys { [key] }
        #expect(!cache.isCached)
        cache.setEnabled(true)
        _ = try await cache.keys { [key] }
        #expect(cache.isCached)
        cache.setEnabled(false)
        #expect(!cache.isCached)
    }

    @Test func theCopyIsRereadOnceItsTimeToLiveHasPassedOnTheInjectedClock() async throws {
        let clock = AdjustableClock(fixed: TestTime.base)
        let cache = SigningKeyCache(timeToLive: .seconds(60), clock: clock)
        let key = try KeyRing.makeKey(now: TestTime.base)
        var reads = 0
        _ = try await cache.keys {
            reads += 1; return [key]
        }
        clock.advance(by: 59)
        _ = try await cache.keys {
            reads += 1; return [key]
        }
        #expect(reads == 1)
        clock.advance(by: 1)
        _ = try await cache.keys {
            reads += 1; return [key]
        }
        #expect(reads == 2)
    }

    @Test func payloadRoundTrips() {
        #expect(TokenInvalidation.signingKeys.payload == "signing_keys")
        #expect(TokenInvalidation(payload: "signing_keys") == .signingKeys)
        #expect(TokenInvalidation(payload: "signing_keys:x") == .all)
    }

    /// Two nodes on one database (SQLite: two connections, as the CLI and the server; PostgreSQL: two pools
    /// with their own listeners). A rotation on A reaches B's cache without B reading on every call.
    @Test func aRotationOnOneNodeIsSeenByTheOther() async throws {
        try await withEachReopenableBackend { open in
            let a = try await open()
            let b = try await open()
            let cacheB = try #require((b.signingKeys as? CachingSigningKeyStore)?.cache)
            try await waitUntil { cacheB.isEnabled }
            let clock = AdjustableClock(fixed: TestTime.base)
            let ringA = KeyRing(store: a.signingKeys, clock: clock)
            let ringB = KeyRing(store: b.signingKeys, clock: clock)
            let first = try await ringA.activeKey()
            #expect(try await ringB.activeKey().kid == first.kid)
            // On SQLite B's watcher drops its copy once more after A's first key; wait until B holds the keys.
            try await waitUntil {
                _ = try await ringB.activeKey(); return cacheB.isCached
            }

            let rotated = try await ringA.rotate(grace: 60)
            try await waitUntil { !cacheB.isCached }
            #expect(try await ringB.activeKey().kid == rotated.kid)
            #expect(Self.kid(of: try await ringB.sign(claims)) == rotated.kid)
            try await a.shutdown()
            try await b.shutdown()
        }
    }

    /// `import` erases everything behind the decorators' backs; every cache on every node must drop.
    @Test func eraseAllOnOneNodeDropsEveryCacheOnTheOther() async throws {
        try await withEachReopenableBackend { open in
            let a = try await open()
            let b = try await open()
            let keysB = try #require((b.signingKeys as? CachingSigningKeyStore)?.cache)
            let tokensB = try #require((b.tokens as? CachingTokenStore)?.cache)
            try await waitUntil { keysB.isEnabled && tokensB.isEnabled }
            try await a.apps.create(Fixture.app("A"))
            try await a.users.create(Fixture.user("1"))
            try await a.tokens.insert(Fixture.token("t1", app: "A", user: "1"))
            _ = try await KeyRing(store: a.signingKeys, clock: AdjustableClock(fixed: TestTime.base)).activeKey()
            try await waitUntil {
                let found = try await b.tokens.find(tokenHash: "hash-t1") != nil
                let keys = try await b.signingKeys.all().count
                return found && keys == 1 && keysB.isCached && tokensB.count == 1
            }

            try await a.emulator.eraseAll()
            try await waitUntil { !keysB.isCached && tokensB.count == 0 }
            #expect(try await b.tokens.find(tokenHash: "hash-t1") == nil)
            #expect(try await b.signingKeys.all().isEmpty)
            try await a.shutdown()
            try await b.shutdown()
        }
    }

    /// A revocation written by another process (the CLI on the same SQLite file) is not announced; the node
    /// must still notice it, here through `PRAGMA data_version`, on PostgreSQL through `NOTIFY`.
    @Test func aRevocationByAnotherConnectionReachesTheTokenCache() async throws {
        try await withEachReopenableBackend { open in
            let a = try await open()
            let b = try await open()
            let tokensB = try #require((b.tokens as? CachingTokenStore)?.cache)
            try await waitUntil { tokensB.isEnabled }
            try await a.apps.create(Fixture.app("A"))
            try await a.users.create(Fixture.user("1"))
            try await a.tokens.insert(Fixture.token("t1", app: "A", user: "1"))
            try await waitUntil {
                try await b.tokens.find(tokenHash: "hash-t1")?.revokedAt == nil && tokensB.count == 1
            }
            try await a.tokens.revoke(id: "t1", at: TestTime.at(7))
            try await waitUntil { try await b.tokens.find(tokenHash: "hash-t1")?.revokedAt == TestTime.at(7) }
            try await a.shutdown()
            try await b.shutdown()
        }
    }
}
