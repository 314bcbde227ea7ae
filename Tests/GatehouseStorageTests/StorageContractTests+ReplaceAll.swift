import Foundation
import GatehouseCore
import GatehouseStorage
import Testing
import GatehouseTestSupport

/// `EmulatorStore.replaceAll(with:)`, the resets' and import's one transaction, on both backends.
@Suite struct StorageReplaceAllContractTests {
    static func state() -> StoredState {
        var state = StoredState(createdAt: TestTime.at(50))
        state.apps = [Fixture.app("A"), Fixture.app("B")]
        state.users = (1...3).map { Fixture.user("\($0)", testUserOf: "A") }
        state.roles = [.init(appID: "A", userID: "1", role: .tester), .init(appID: "A", userID: "1", role: .admin)]
        state.scopedIDs = [.init(appID: "A", userID: "1", scopedID: "s1")]
        state.friendships = [("1", "2"), ("2", "1"), ("3", "1"), ("3", "3")]
        state.grants = [Fixture.grant(app: "A", user: "1"), Fixture.grant(app: "A", user: "1", granted: ["email"])]
        state.tokens = [Fixture.token("t1", app: "A", user: "1")]
        state.injections = [
            InjectedErrorRecord(
                id: "i1", targetKind: .app, targetID: "A", code: 4, subcode: nil, remaining: 2, createdAt: TestTime.base
            )
        ]
        state.settings = ["clock_offset_seconds": "60"]
        return state
    }

    @Test func theNewStateReplacesEverythingButTheKeys() async throws {
        try await withEachBackend { storage in
            let key = SigningKeyRecord(kid: "k", privateKeyPEM: "pem", certificatePEM: "cert", createdAt: TestTime.base)
            try await storage.signingKeys.insert(key)
            try await storage.apps.create(Fixture.app("OLD"))
            try await storage.users.create(Fixture.user("old"))
            try await storage.emulator.setSetting("stale", "yes")

            try await storage.emulator.replaceAll(with: Self.state())
            #expect(try await storage.apps.list().map(\.id) == ["A", "B"])
            #expect(try await storage.users.list().map(\.id) == ["1", "2", "3"])
            #expect(try await storage.apps.role(appID: "A", userID: "1") == .admin, "the last of a repeated role")
            #expect(try await storage.users.scopedIDs(userID: "1").map(\.scopedID) == ["s1"])
            #expect(try await storage.friendships.friends(of: "1").sorted() == ["2", "3"])
            #expect(try await storage.friendships.friends(of: "3") == ["1"])
            #expect(try await storage.grants.find(appID: "A", userID: "1")?.granted == ["email"])
            #expect(try await storage.tokens.find(tokenHash: "hash-t1")?.id == "t1")
            #expect(try await storage.emulator.injections().map(\.id) == ["i1"])
            #expect(try await storage.emulator.setting("clock_offset_seconds") == "60")
            #expect(try await storage.emulator.setting("stale") == nil)
            #expect(try await storage.signingKeys.all() == [key], "nil keys keep the database's")

            var replacing = StoredState(createdAt: TestTime.base)
            replacing.signingKeys = []
            try await storage.emulator.replaceAll(with: replacing)
            #expect(try await storage.apps.list().isEmpty)
            #expect(try await storage.users.list().isEmpty)
            #expect(try await storage.signingKeys.all().isEmpty)
            #expect(try await storage.emulator.injections().isEmpty)
        }
    }

    /// What the old state did goes with it (a test suite resets before each test and expects none of the last
    /// one's events, journal, mail, callbacks, notifications or counters), in the same transaction; the audit log
    /// stays, and event positions keep counting, so a follower's cursor still works after a reset.
    @Test func theOldStatesHistoryGoesButTheAuditLogStays() async throws {
        try await withEachBackend { storage in
            let events = try #require(storage.events)
            let deliveries = try #require(storage.eventDeliveries)
            let journal = try #require(storage.journal)
            let mail = try #require(storage.mail)
            let codes = try #require(storage.accountCodes)
            let webhooks = try #require(storage.webhooks)
            try await storage.apps.create(Fixture.app("A"))
            let old = try #require(
                try await events.append(
                    GatehouseEvent(id: "e1", type: .adminWrite, time: TestTime.at(1), node: "n"),
                    deliveries: [
                        EventDeliveryRecord(
                            eventID: "e1", sink: "siem", body: "{}", nextAttemptAt: TestTime.at(1),
                            createdAt: TestTime.at(1))
                    ]))
            try await journal.append(
                [
                    JournalEntry(
                        sequence: 1, time: TestTime.at(1), kind: .graph, method: "GET", route: "/me", status: 200,
                        durationMilliseconds: 1)
                ], node: "n")
            try await mail.insert(
                MailMessageRecord(
                    id: "m1", kind: "invitation", userID: nil, to: "ann@example.com", subject: "Join", text: "t",
                    html: "h", createdAt: TestTime.at(1), nextAttemptAt: nil))
            try await codes.insert(
                AccountCodeRecord(
                    codeHash: "h1", purpose: .invitation, userID: nil, email: "ann@example.com",
                    createdAt: TestTime.at(1), expiresAt: TestTime.at(100)))
            try await storage.appCallbacks.insert(
                AppCallbackRecord(
                    id: "c1", appID: "A", kind: .deauthorize, userID: "u1", url: "http://x/cb", body: "b",
                    nextAttemptAt: TestTime.at(1), createdAt: TestTime.at(1)))
            try await webhooks.insert(
                WebhookDeliveryRecord(
                    id: "d1", appID: "A", object: .user, url: "https://a.example/hook", body: "{}",
                    batchUntil: TestTime.at(10), nextAttemptAt: TestTime.at(10), createdAt: TestTime.at(1)))
            _ = try await storage.rateLimits.increment(
                key: "login:ann", windowStart: 0, amount: 3, expiresAt: TestTime.at(1000))
            try await storage.admins.appendAudit(
                AuditEntryRecord(
                    time: TestTime.at(1), actorKind: "development", actorID: nil, actorName: nil, method: "POST",
                    route: "/admin/api/v1/apps", target: nil, status: 201))

            var state = StoredState(createdAt: TestTime.at(2))
            state.apps = [Fixture.app("A")]
            try await storage.emulator.replaceAll(with: state)
            #expect(try await events.list(EventQuery(types: [], limit: 100)).isEmpty)
            #expect(try await deliveries.deliveries(eventID: "e1").isEmpty)
            #expect(try await journal.recent(limit: 10).isEmpty)
            #expect(try await mail.list(to: nil, limit: 10).isEmpty)
            #expect(try await codes.find(codeHash: "h1") == nil)
            #expect(try await storage.appCallbacks.due(now: TestTime.at(100), limit: 10).isEmpty)
            #expect(try await webhooks.deliveries(appID: "A", limit: 10).isEmpty)
            #expect(try await storage.rateLimits.count(key: "login:ann", windowStart: 0) == 0)
            #expect(try await storage.admins.audit(before: nil, limit: 10).map(\.route) == ["/admin/api/v1/apps"])

            let next = try #require(
                try await events.append(
                    GatehouseEvent(id: "e2", type: .adminWrite, time: TestTime.at(3), node: "n"), deliveries: []))
            #expect(next.sequence > old.sequence)
            #expect(try await events.list(EventQuery(types: [], limit: 100)).map(\.id) == ["e2"])
        }
    }

    /// A row the database refuses rolls the whole replacement back: the erase too, so nothing is half-imported.
    @Test func aRefusedRowLeavesTheStateAsItWas() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("OLD"))
            var state = Self.state()
            state.friendships.append(("1", "nobody"))
            await #expect(throws: StorageError.notFound) { try await storage.emulator.replaceAll(with: state) }
            #expect(try await storage.apps.list().map(\.id) == ["OLD"])
            #expect(try await storage.users.list().isEmpty)
        }
    }

    /// More rows than one statement may bind go in several statements of the same transaction.
    @Test func manyRowsAreWrittenInBatches() async throws {
        try await withEachBackend { storage in
            var state = StoredState(createdAt: TestTime.base)
            state.apps = [Fixture.app("A")]
            state.users = (0..<1_500).map { Fixture.user("p\($0)") }
            try await storage.emulator.replaceAll(with: state)
            let stored = try await storage.users.list()
            #expect(stored.count == 1_500)
            #expect(stored.first?.id == "p0" && stored.last?.id == "p1499")
        }
    }

    @Test func insertAllAddsBesideWhatIsThere() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("OLD"))
            var state = StoredState(createdAt: TestTime.base)
            state.apps = [Fixture.app("NEW")]
            state.users = [Fixture.user("1", testUserOf: "NEW")]
            try await storage.emulator.insertAll(state)
            #expect(try await storage.apps.list().map(\.id).sorted() == ["NEW", "OLD"])
            #expect(try await storage.users.list().map(\.testUserOfAppID) == ["NEW"])
        }
    }
}
