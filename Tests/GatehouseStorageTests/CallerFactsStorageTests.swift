import Foundation
import Testing
import GatehouseCore
import GatehouseTestSupport

/// A full caller cache must fit the node's memory budget (`docs/BENCHMARKS.md`: RSS with full caches), so
/// cached callers of one app share its record instead of each holding a copy read by its own cache miss.
@Suite("Caller facts share storage")
struct CallerFactsStorageTests {
    /// Where a (long, heap-allocated) string's bytes live: equal addresses mean one shared buffer.
    static func address(_ text: String) -> UInt? {
        text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? nil
    }

    /// A copy of `text` in a buffer of its own, as a row decoder makes it.
    static func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    /// Records as a cache miss decodes them: every string built afresh, so nothing is shared to begin with.
    static func decodedFacts(token n: Int, secret: String = "0123456789abcdef0123456789abcdef") -> CallerFacts {
        let appID = fresh("9211861996266581")
        var app = Fixture.app(appID)
        app.secret = fresh(secret)
        let userID = "1000000000\(n)00000"
        var token = Fixture.token("token-\(n)-0123456789", app: fresh(appID), user: fresh(userID))
        token.tokenHash = "hash-\(n)"
        let grant = Fixture.grant(app: fresh(appID), user: fresh(userID))
        return CallerFacts(
            app: app, kind: .user(token: token, user: Fixture.user(userID), grant: grant, scopedID: "scoped-\(n)"))
    }

    static func parts(_ facts: CallerFacts) -> (TokenRecord, UserRecord, GrantRecord)? {
        guard case .user(let token, let user, let grant, _) = facts.kind else { return nil }
        return (token, user, grant)
    }

    @Test func callersOfOneAppShareItsRecordAndTheirIdsShareTheirRecordsStrings() throws {
        let cache = CallerCache(clock: AdjustableClock(fixed: TestTime.base))
        let first = Self.decodedFacts(token: 1), second = Self.decodedFacts(token: 2)
        #expect(Self.address(first.app.secret) != Self.address(second.app.secret), "decoded apart")
        for (facts, key) in [(first, "k1"), (second, "k2")] {
            let (_, generation) = cache.beginCaller(key)
            cache.storeCaller(facts, for: key, ifGeneration: try #require(generation))
        }
        let held1 = try #require(cache.beginCaller("k1").hit), held2 = try #require(cache.beginCaller("k2").hit)
        // The same values as stored...
        #expect(held2.app == second.app)
        let (token2, user2, grant2) = try #require(Self.parts(held2)),
            (token, user, grant) = try #require(Self.parts(second))
        #expect(token2 == token && user2 == user && grant2 == grant)
        // ...in the first caller's buffers.
        #expect(Self.address(held2.app.secret) == Self.address(held1.app.secret))
        #expect(Self.address(held2.app.id) == Self.address(held1.app.id))
        #expect(Self.address(token2.appID) == Self.address(held2.app.id))
        #expect(Self.address(grant2.appID) == Self.address(held2.app.id))
        #expect(Self.address(token2.userID!) == Self.address(user2.id))
        #expect(Self.address(grant2.userID) == Self.address(user2.id))
    }

    @Test func anAppReadWithOtherValuesKeepsItsOwnRecord() throws {
        let cache = CallerCache(clock: AdjustableClock(fixed: TestTime.base))
        let old = Self.decodedFacts(token: 1),
            new = Self.decodedFacts(token: 2, secret: "fedcba9876543210fedcba9876543210")
        for (facts, key) in [(old, "k1"), (new, "k2")] {
            let (_, generation) = cache.beginCaller(key)
            cache.storeCaller(facts, for: key, ifGeneration: try #require(generation))
        }
        let held = try #require(cache.beginCaller("k2").hit)
        #expect(held.app == new.app)
        #expect(held.app.secret == "fedcba9876543210fedcba9876543210")
        #expect(try #require(cache.beginCaller("k1").hit).app == old.app)
    }
}
