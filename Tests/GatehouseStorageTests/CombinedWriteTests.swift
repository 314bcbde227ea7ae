import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport
import GatehouseProtocol
import SQLKit

/// The code exchange's and the consent's writes (``WriteTransactions/consumeCode(id:at:storing:recording:)`` and
/// ``WriteTransactions/saveGrant(_:storing:)``): one statement each on PostgreSQL and a transaction of two on
/// SQLite, and on both all or nothing, with the same errors.
@Suite("Combined writes: code exchange and consent", .timeLimit(.minutes(10)))
struct CombinedWriteTests {
    static let app = "100000000000001"

    func seed(_ storage: Storage) async throws {
        try await storage.apps.create(Fixture.app())
        try await storage.users.create(Fixture.user("1"))
    }

    func grant(_ granted: [String], at second: TimeInterval) -> GrantRecord {
        GrantRecord(
            appID: Self.app, userID: "1", granted: granted, declined: ["user_friends"], createdAt: TestTime.at(1),
            updatedAt: TestTime.at(second), lastLoginAt: TestTime.at(second), defaultAudience: .friends)
    }

    /// The token endpoint's code exchange (``Storage/consumeCode(id:at:storing:recording:)``), which must ask for
    /// its events exactly when it stored the token.
    func consumeCode(_ storage: Storage, id: String, at: Date, storing token: TokenRecord) async throws -> Bool {
        let asked = LockedValue(0)
        let consumed = try await storage.consumeCode(id: id, at: at, storing: token) { _ in
            asked.withLockedValue { $0 += 1 }
        }
        #expect(asked.withLockedValue { $0 } == (consumed ? 1 : 0))
        return consumed
    }

    /// PostgreSQL sends the code exchange and its events as one statement
    /// (``WriteTransactions/consumeCode(id:at:storing:storingEvents:)``): the events are stored with the exchange,
    /// numbered in their order, and neither a replay nor a failed insert stores any. SQLite answers nil, writing
    /// nothing: its events go in the exchange's transaction instead.
    @Test func onPostgreSQLTheExchangeAndItsEventsAreOneStatement() async throws {
        try await withEachBackend { storage in
            try await seed(storage)
            try await storage.codes.insert(Fixture.code("c1", app: Self.app, user: "1"))
            try await storage.codes.insert(Fixture.code("c2", app: Self.app, user: "1"))
            let writes = try #require(storage.writes)
            let events = try #require(storage.events)
            func exchanged(_ id: String) -> [GatehouseEvent] {
                [
                    StorageEventContractTests.event("\(id)-x", .codeExchanged, at: 5, app: Self.app, person: "1"),
                    StorageEventContractTests.event("\(id)-i", .tokenIssued, at: 5, app: Self.app, person: "1"),
                ]
            }
            let token = Fixture.token("t1", app: Self.app, user: "1", codeID: "c1")
            let consumed = try await writes.consumeCode(
                id: "c1", at: TestTime.at(5), storing: token, storingEvents: exchanged("e1"))
            guard (writes as? SQLWriteTransactions)?.database.dialect.name == "postgresql" else {
                #expect(consumed == nil)
                #expect(try await storage.codes.find(codeHash: "codehash-c1")?.usedAt == nil)
                #expect(try await storage.tokens.find(tokenHash: "hash-t1") == nil)
                return
            }
            #expect(consumed == true)
            #expect(try await storage.tokens.find(tokenHash: "hash-t1") == token)
            let stored = try await events.list(EventQuery(limit: 10))
            #expect(stored.map(\.id) == ["e1-x", "e1-i"])
            #expect(stored[0].sequence < stored[1].sequence)
            #expect(stored[0].details == ["reason": "wrong password", "step": "password"])

            // A replay stores neither a token nor events.
            #expect(
                try await writes.consumeCode(
                    id: "c1", at: TestTime.at(6), storing: Fixture.token("t2", app: Self.app, user: "1"),
                    storingEvents: exchanged("e2")) == false)
            // A token that cannot be stored takes its code's use and its events with it.
            var clash = Fixture.token("t3", app: Self.app, user: "1", codeID: "c2")
            clash.tokenHash = "hash-t1"
            await #expect(throws: StorageError.conflict("token_hash")) {
                try await writes.consumeCode(
                    id: "c2", at: TestTime.at(7), storing: clash, storingEvents: exchanged("e3"))
            }
            #expect(try await storage.codes.find(codeHash: "codehash-c2")?.usedAt == nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t2") == nil)
            #expect(try await events.list(EventQuery(limit: 10)).map(\.id) == ["e1-x", "e1-i"])
        }
    }

    @Test func theCodeExchangeConsumesTheCodeAndStoresTheTokenOnceAndAtomically() async throws {
        try await withEachBackend { storage in
            try await seed(storage)
            try await storage.codes.insert(Fixture.code("c1", app: Self.app, user: "1"))
            var token = Fixture.token("t1", app: Self.app, user: "1", codeID: "c1")
            token.authType = "rerequest"
            #expect(try await consumeCode(storage, id: "c1", at: TestTime.at(5), storing: token))
            #expect(try await storage.tokens.find(tokenHash: "hash-t1") == token)
            #expect(try await storage.codes.find(codeHash: "codehash-c1")?.usedAt == TestTime.at(5))

            // A used code, and an unknown one: false, and the token is not stored.
            #expect(
                try await !consumeCode(
                    storage, id: "c1", at: TestTime.at(6),
                    storing: Fixture.token("t2", app: Self.app, user: "1", codeID: "c1")))
            #expect(
                try await !consumeCode(
                    storage, id: "nope", at: TestTime.at(6), storing: Fixture.token("t3", app: Self.app, user: "1")))
            #expect(try await storage.tokens.find(tokenHash: "hash-t2") == nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t3") == nil)
            #expect(try await storage.codes.find(codeHash: "codehash-c1")?.usedAt == TestTime.at(5))

            // A token that cannot be stored leaves the code unused, with the insert's own error.
            try await storage.codes.insert(Fixture.code("c2", app: Self.app, user: "1"))
            var clash = Fixture.token("t4", app: Self.app, user: "1", codeID: "c2")
            clash.tokenHash = "hash-t1"
            await #expect(throws: StorageError.conflict("token_hash")) {
                try await consumeCode(storage, id: "c2", at: TestTime.at(7), storing: clash)
            }
            #expect(try await storage.codes.find(codeHash: "codehash-c2")?.usedAt == nil)
            #expect(
                try await consumeCode(
                    storage, id: "c2", at: TestTime.at(8),
                    storing: Fixture.token("t5", app: Self.app, user: "1", codeID: "c2")))
        }
    }

    @Test func theConsentSavesTheGrantAndStoresTheCodeTogether() async throws {
        try await withEachBackend { storage in
            try await seed(storage)
            let first = grant(["public_profile"], at: 2)
            try await storage.saveGrant(first, storing: Fixture.code("c1", app: Self.app, user: "1"))
            #expect(try await storage.grants.find(appID: Self.app, userID: "1") == first)
            #expect(
                try await storage.codes.find(codeHash: "codehash-c1") == Fixture.code("c1", app: Self.app, user: "1"))

            // The second consent updates the grant in place.
            let second = grant(["public_profile", "email"], at: 3)
            try await storage.saveGrant(second, storing: Fixture.code("c2", app: Self.app, user: "1"))
            #expect(try await storage.grants.find(appID: Self.app, userID: "1") == second)
            #expect(try await storage.codes.find(codeHash: "codehash-c2")?.id == "c2")

            // A code that cannot be stored leaves the grant as it was, with the insert's own error.
            var clash = Fixture.code("c3", app: Self.app, user: "1")
            clash.codeHash = "codehash-c1"
            await #expect(throws: StorageError.conflict("code_hash")) {
                try await storage.saveGrant(grant(["email"], at: 4), storing: clash)
            }
            #expect(try await storage.grants.find(appID: Self.app, userID: "1") == second)
        }
    }

    @Test func unknownPeopleFailAsTheTwoStatementsInATransactionDid() async throws {
        try await withEachBackend { storage in
            try await seed(storage)
            var unknown = grant(["public_profile"], at: 2)
            unknown.userID = "nobody"
            let stranger = unknown
            let code = Fixture.code("c1", app: Self.app, user: "nobody")
            let old = await #expect(throws: StorageError.self) {
                try await storage.transaction { tx in
                    try await tx.grants.save(stranger)
                    try await tx.codes.insert(code)
                }
            }
            let new = await #expect(throws: StorageError.self) { try await storage.saveGrant(stranger, storing: code) }
            #expect(new == old)
            #expect(try await storage.grants.grants(userID: "nobody").isEmpty)
            #expect(try await storage.codes.find(codeHash: "codehash-c1") == nil)
        }
    }

    /// PostgreSQL: the consent's one statement carries the grant's notification, so another node's cache drops
    /// the person's entries when it commits.
    @Test func theConsentsNotificationReachesTheOtherNode() async throws {
        let url = try await PostgresTestDatabase.create()
        do {
            let a = try await PostgresStorage.open(url: url, logger: StorageBackends.logger).runningFeed()
            let b = try await PostgresStorage.open(url: url, logger: StorageBackends.logger).runningFeed()
            let cacheB = try #require((b.tokens as? CachingTokenStore)?.cache)
            try await waitUntil { cacheB.isEnabled }
            try await seed(a)
            try await a.tokens.insert(Fixture.token("t1", app: Self.app, user: "1"))
            #expect(try await b.tokens.find(tokenHash: "hash-t1") != nil)
            #expect(cacheB.count == 1)
            try await a.saveGrant(
                grant(["public_profile"], at: 2), storing: Fixture.code("c1", app: Self.app, user: "1"))
            try await waitUntil(seconds: 60) { cacheB.count == 0 }
            try await a.shutdown()
            try await b.shutdown()
        } catch {
            try? await PostgresTestDatabase.drop(url)
            throw error
        }
        try await PostgresTestDatabase.drop(url)
    }
}
