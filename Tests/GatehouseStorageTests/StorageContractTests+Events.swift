import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Contract tests for the event stream and its sink outbox (migration 19), on every backend.
@Suite("Storage contract: events")
struct StorageEventContractTests {
    static func event(
        _ id: String, _ type: EventType, at seconds: TimeInterval, app: String? = nil, person: String? = nil
    )
        -> GatehouseEvent
    {
        GatehouseEvent(
            id: id, type: type, time: TestTime.at(seconds), appID: app, personID: person, node: "node-a:8080",
            details: ["reason": "wrong password", "step": "password"])
    }

    @Test func eventsAreListedInOrderAfterACursorAndFiltered() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.events)
            #expect(try await store.latestSequence() == 0)
            let a = try #require(
                try await store.append(Self.event("e1", .loginFailed, at: 10, person: "p1"), deliveries: []))
            let b = try #require(
                try await store.append(
                    Self.event("e2", .tokenIssued, at: 20, app: "app1", person: "p1"), deliveries: []))
            let c = try #require(try await store.append(Self.event("e3", .adminWrite, at: 30), deliveries: []))
            #expect(a.sequence < b.sequence && b.sequence < c.sequence)
            #expect(try await store.latestSequence() == c.sequence)
            // The same id again is not stored a second time.
            #expect(try await store.append(Self.event("e1", .loginFailed, at: 40), deliveries: []) == nil)

            let all = try await store.list(EventQuery(limit: 10))
            #expect(all.map(\.id) == ["e1", "e2", "e3"])
            #expect(all[0] == a)
            #expect(all[0].details == ["reason": "wrong password", "step": "password"])
            #expect(try await store.list(EventQuery(after: a.sequence, limit: 10)).map(\.id) == ["e2", "e3"])
            #expect(try await store.list(EventQuery(after: a.sequence, limit: 1)).map(\.id) == ["e2"])
            #expect(
                try await store.list(EventQuery(types: [.loginFailed, .adminWrite], limit: 10)).map(\.id) == [
                    "e1", "e3",
                ])
            #expect(try await store.list(EventQuery(appID: "app1", limit: 10)).map(\.id) == ["e2"])
            #expect(try await store.list(EventQuery(personID: "p1", limit: 10)).map(\.id) == ["e1", "e2"])
            #expect(
                try await store.list(EventQuery(since: TestTime.at(20), until: TestTime.at(30), limit: 10)).map(\.id)
                    == ["e2"])
        }
    }

    @Test func anEventsDeliveriesAreStoredWithItAndDueAtOnce() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.events)
            let outbox = try #require(storage.eventDeliveries)
            let event = Self.event("e9", .passwordChanged, at: 100, person: "p2")
            let deliveries = ["audit", "siem"].map {
                EventDeliveryRecord(
                    eventID: "e9", sink: $0, body: "{\"id\":\"e9\"}", nextAttemptAt: TestTime.at(100),
                    createdAt: TestTime.at(100))
            }
            #expect(try await store.append(event, deliveries: deliveries) != nil)
            #expect(try await outbox.deliveries(eventID: "e9") == deliveries)
            #expect(try await outbox.due(now: TestTime.at(100), limit: 10).map(\.id) == ["e9@audit", "e9@siem"])
            #expect(
                try await outbox.claim(
                    id: "e9@audit", expectedNextAttemptAt: TestTime.at(100), leaseUntil: TestTime.at(220)))
            #expect(try await outbox.due(now: TestTime.at(100), limit: 10).map(\.id) == ["e9@siem"])
        }
    }

    /// A transaction's events in one call: stored in order with their deliveries; one already stored is skipped,
    /// and so are its deliveries, without failing the rest.
    @Test func severalEventsAreStoredInOrderAndAStoredOneIsSkipped() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.events)
            let outbox = try #require(storage.eventDeliveries)
            func delivery(_ id: String, _ body: String) -> EventDeliveryRecord {
                EventDeliveryRecord(
                    eventID: id, sink: "siem", body: body, nextAttemptAt: TestTime.at(50), createdAt: TestTime.at(50))
            }
            let first = try #require(try await store.append(Self.event("b1", .loginFailed, at: 40), deliveries: []))
            try await store.append(contentsOf: [])
            try await store.append(contentsOf: [
                (Self.event("b2", .codeExchanged, at: 50, app: "app1", person: "p1"), [delivery("b2", "two")]),
                (Self.event("b1", .adminWrite, at: 50), [delivery("b1", "again")]),
                (Self.event("b3", .tokenIssued, at: 50, app: "app1", person: "p1"), []),
            ])
            let listed = try await store.list(EventQuery(after: first.sequence, limit: 10))
            #expect(listed.map(\.id) == ["b2", "b3"])
            #expect(listed.map(\.type) == [.codeExchanged, .tokenIssued])
            #expect(listed[0].sequence < listed[1].sequence)
            #expect(listed[0].details == ["reason": "wrong password", "step": "password"])
            #expect(try await store.list(EventQuery(limit: 10)).first?.type == .loginFailed)
            #expect(try await outbox.deliveries(eventID: "b2") == [delivery("b2", "two")])
            #expect(try await outbox.deliveries(eventID: "b1").isEmpty)
        }
    }

    @Test func pruningDropsOldEventsThenTheOldestOverTheCount() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.events)
            for i in 1...5 {
                _ = try await store.append(Self.event("p\(i)", .adminWrite, at: TimeInterval(i * 100)), deliveries: [])
            }
            #expect(try await store.prune(olderThan: TestTime.at(200), keepingAtMost: 3) == 2)
            #expect(try await store.list(EventQuery(limit: 10)).map(\.id) == ["p3", "p4", "p5"])
        }
    }

    @Test func theExpirySweepFindsUserTokensThatExpiredInTheWindow() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.events)
            let app = Fixture.app()
            let user = Fixture.user("u1")
            try await storage.apps.create(app)
            try await storage.users.create(user)
            func token(_ id: String, expires: TimeInterval, revoked: Bool = false) -> TokenRecord {
                TokenRecord(
                    id: id, tokenHash: "hash-" + id, kind: .user, appID: app.id, userID: user.id,
                    issuedAt: TestTime.at(0), expiresAt: TestTime.at(expires), revokedAt: revoked ? TestTime.at(1) : nil
                )
            }
            for t in [
                token("early", expires: 50), token("in", expires: 150), token("edge", expires: 200),
                token("revoked", expires: 150, revoked: true), token("late", expires: 250),
            ] {
                try await storage.tokens.insert(t)
            }
            let found = try await store.tokensExpired(after: TestTime.at(100), upTo: TestTime.at(200), limit: 10)
            #expect(found.map(\.id) == ["in", "edge"])
        }
    }
}
