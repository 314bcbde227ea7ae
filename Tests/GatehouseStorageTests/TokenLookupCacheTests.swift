import Foundation
import Testing
@testable import GatehouseCore
@testable import GatehouseStorage
import GatehouseTestSupport

/// The node-local token cache: what it stores, what invalidates it, and the race it must not lose.
@Suite("Token lookup cache")
struct TokenLookupCacheTests {
    let t1 = Fixture.token("t1", app: "A", user: "1", codeID: "c1")
    let t2 = Fixture.token("t2", app: "B", user: "2")

    @Test func payloadsRoundTripAndUnknownOnesMeanEverything() {
        let events: [TokenInvalidation] = [
            .token(id: "x"), .appUser(appID: "1", userID: "2"), .user(id: "3"), .code(id: "4"), .app(id: "5"),
            .signingKeys, .all,
        ]
        for event in events { #expect(TokenInvalidation(payload: event.payload) == event) }
        #expect(TokenInvalidation.appUser(appID: "1", userID: "2").payload == "app_user:1:2")
        #expect(TokenInvalidation(payload: "bogus") == .all)
        #expect(TokenInvalidation(payload: "token:a:b") == .all)
    }

    @Test func foundTokensAreCachedAndMissesAreNot() async throws {
        let cache = TokenLookupCache()
        var loads = 0
        for _ in 0..<3 {
            #expect(
                try await cache.lookup("hash-t1") {
                    loads += 1; return t1
                } == t1)
        }
        #expect(loads == 1)
        for _ in 0..<2 {
            #expect(
                try await cache.lookup("nope") {
                    loads += 1; return nil
                } == nil)
        }
        #expect(loads == 3)
    }

    @Test func eachInvalidationDropsExactlyTheMatchingRecords() async throws {
        let cases: [(TokenInvalidation, Int)] = [
            (.token(id: "t1"), 1), (.appUser(appID: "A", userID: "1"), 1), (.appUser(appID: "A", userID: "2"), 2),
            (.user(id: "2"), 1), (.code(id: "c1"), 1), (.code(id: "c9"), 2), (.all, 0),
        ]
        for (event, left) in cases {
            let cache = TokenLookupCache()
            _ = try await cache.lookup("hash-t1") { t1 }
            _ = try await cache.lookup("hash-t2") { t2 }
            cache.invalidate(event)
            #expect(cache.count == left, "\(event)")
        }
    }

    @Test func aLookupRacingAnInvalidationDoesNotStoreItsStaleResult() async throws {
        let cache = TokenLookupCache()
        // The read started before the revocation and returns the old record after it: not cached.
        let read = try await cache.lookup("hash-t1") {
            cache.invalidate(.token(id: "t1"))
            return t1
        }
        #expect(read == t1)
        #expect(cache.count == 0)
    }

    @Test func aDisabledCacheStoresNothingAndReenablingStartsEmpty() async throws {
        let cache = TokenLookupCache(enabled: false)
        var loads = 0
        for _ in 0..<2 {
            _ = try await cache.lookup("hash-t1") {
                loads += 1; return t1
            }
        }
        #expect(loads == 2)
        #expect(cache.count == 0)
        cache.setEnabled(true)
        _ = try await cache.lookup("hash-t1") { t1 }
        #expect(cache.count == 1)
        cache.setEnabled(false)
        #expect(cache.count == 0)
    }

    @Test func entriesExpireAndCapacityIsBounded() async throws {
        // On the injected clock: no waiting, and the emulator's clock control ages entries too.
        let clock = AdjustableClock(fixed: TestTime.base)
        let short = TokenLookupCache(timeToLive: .seconds(300), clock: clock)
        var loads = 0
        _ = try await short.lookup("hash-t1") {
            loads += 1; return t1
        }
        clock.advance(by: 299)
        _ = try await short.lookup("hash-t1") {
            loads += 1; return t1
        }
        #expect(loads == 1)
        clock.advance(by: 1)
        _ = try await short.lookup("hash-t1") {
            loads += 1; return t1
        }
        #expect(loads == 2)
        // A clock moved back before the entry was stored does not make it younger: it is read again.
        clock.advance(by: -10)
        _ = try await short.lookup("hash-t1") {
            loads += 1; return t1
        }
        #expect(loads == 3)

        let small = TokenLookupCache(capacity: 2)
        for i in 0..<5 {
            _ = try await small.lookup("hash-\(i)") { Fixture.token("\(i)", app: "A", user: "1") }
        }
        #expect(small.count <= 2)
    }

    @Test func aFullCacheEvictsItsOldestEntryNotEverything() async throws {
        let small = TokenLookupCache(capacity: 3)
        for i in 0..<5 {
            _ = try await small.lookup("hash-\(i)") { Fixture.token("\(i)", app: "A", user: "1") }
        }
        #expect(small.count == 3)
        var loads = 0
        for i in 2..<5 {
            _ = try await small.lookup("hash-\(i)") {
                loads += 1; return Fixture.token("\(i)", app: "A", user: "1")
            }
        }
        #expect(loads == 0, "the three newest entries survive")
        _ = try await small.lookup("hash-0") {
            loads += 1; return Fixture.token("0", app: "A", user: "1")
        }
        #expect(loads == 1, "the oldest was evicted")
    }

    /// The indexed entries against the obvious model (a dictionary filtered with `matches`), over a long
    /// random sequence of stores, replacements, invalidations and evictions.
    @Test func theIndexAgreesWithAFullScanOverRandomOperations() {
        var generator = SystemRandomNumberGenerator()
        var entries = IndexedCacheEntries<TokenRecord>()
        var model: [String: TokenRecord] = [:]
        var order: [String] = []
        let capacity = 20
        for step in 0..<5_000 {
            let n = Int.random(in: 0..<40, using: &generator)
            let record = Fixture.token(
                "t\(n)", app: ["A", "B"][n % 2], user: n % 7 == 0 ? nil : "u\(n % 5)",
                codeID: n % 3 == 0 ? "c\(n % 4)" : nil)
            if Int.random(in: 0..<4, using: &generator) > 0 {
                entries.insert(record, for: record.tokenHash, at: .now, capacity: capacity)
                if model.removeValue(forKey: record.tokenHash) != nil { order.removeAll { $0 == record.tokenHash } }
                while model.count >= capacity { model[order.removeFirst()] = nil }
                model[record.tokenHash] = record
                order.append(record.tokenHash)
            } else {
                let events: [TokenInvalidation] = [
                    .token(id: "t\(n)"), .user(id: "u\(n % 5)"),
                    .appUser(appID: ["A", "B"][n % 2], userID: "u\(n % 5)"),
                    .code(id: "c\(n % 4)"), .signingKeys, .app(id: "A"), step % 500 == 0 ? .all : .token(id: "none"),
                ]
                let event = events[Int.random(in: 0..<events.count, using: &generator)]
                entries.remove(matching: event)
                model = model.filter { !event.matches($0.value) }
                order.removeAll { model[$0] == nil }
            }
            let agrees = entries.count == model.count && model.allSatisfy { entries[$0.key]?.value == $0.value }
            guard agrees else {
                Issue.record("index and model disagree at step \(step)")
                return
            }
        }
    }

    @Test func theCachingStoreInvalidatesLocallyAndPublishes() async throws {
        final class Recorder: TokenInvalidationPublisher, @unchecked Sendable {
            let lock = NSLock()
            var events: [TokenInvalidation] = []
            func publish(_ event: TokenInvalidation) async { lock.withLock { events.append(event) } }
        }
        try await withEachBackend { storage in
            let recorder = Recorder()
            let cache = TokenLookupCache()
            let base = (storage.tokens as? CachingTokenStore)?.base ?? storage.tokens
            let tokens = CachingTokenStore(base: base, cache: cache, publisher: recorder)
            try await storage.apps.create(Fixture.app("A"))
            try await storage.users.create(Fixture.user("1"))
            try await tokens.insert(t1)
            _ = try await tokens.find(tokenHash: "hash-t1")
            try await tokens.revoke(id: "t1", at: TestTime.at(1))
            #expect(try await tokens.find(tokenHash: "hash-t1")?.revokedAt == TestTime.at(1))
            try await tokens.setExpiry(id: "t1", expiresAt: nil)
            try await tokens.revokeAll(appID: "A", userID: "1", at: TestTime.at(2))
            try await tokens.revokeAll(userID: "1", at: TestTime.at(3))
            try await tokens.revokeAll(codeID: "c1", at: TestTime.at(4))
            #expect(
                recorder.lock.withLock { recorder.events } == [
                    .token(id: "t1"), .token(id: "t1"), .appUser(appID: "A", userID: "1"), .user(id: "1"),
                    .code(id: "c1"),
                ])
        }
    }
}
