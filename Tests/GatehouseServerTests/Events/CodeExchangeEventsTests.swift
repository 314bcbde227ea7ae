import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport
import Testing

/// The code exchange's events on each backend: on SQLite written in the exchange's transaction, on PostgreSQL
/// (one statement, ``SQLAuthCodeStore/consume(id:at:storing:)``) announced once it has committed. Either way the
/// token endpoint's `code.exchanged` and the stored token's `token.issued` are heard exactly when the code was
/// consumed, in that order, and a replay is heard of nothing.
@Suite("Code exchange events on each backend", .timeLimit(.minutes(10)))
struct CodeExchangeEventsTests {
    /// Hears every event (a recorder that is not the server's event log hears them after the commit).
    final class Heard: EventRecorder, Sendable {
        let events = LockedValue<[(EventType, String?)]>([])
        func record(_ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String])
            async
        { events.withLockedValue { $0.append((type, details["code_id"] ?? details["token_id"])) } }
        var heard: [String] { events.withLockedValue { $0.map { "\($0.0.rawValue) \($0.1 ?? "-")" } } }
    }

    @Test func bothEventsFollowAConsumedCodeAndNoneAReplay() async throws {
        try await withEachBackend { plain in
            try await plain.apps.create(Fixture.app("1"))
            try await plain.users.create(Fixture.user("u1"))
            try await plain.codes.insert(Fixture.code("c1", app: "1", user: "u1"))
            let heard = Heard()
            let storage = plain.announcingTokenEvents(to: heard)
            let token = Fixture.token("t1", app: "1", user: "u1", codeID: "c1")
            let exchange: @Sendable (any TransactionEventRecorder) async throws -> Void = {
                try await $0.record(.codeExchanged, appID: "1", personID: "u1", ["code_id": "c1"])
            }
            #expect(try await storage.consumeCode(id: "c1", at: TestTime.at(5), storing: token, recording: exchange))
            #expect(heard.heard == ["code.exchanged c1", "token.issued \(token.id)"])
            #expect(try await plain.tokens.find(tokenHash: token.tokenHash) == token)

            let replay = Fixture.token("t2", app: "1", user: "u1", codeID: "c1")
            #expect(try await !storage.consumeCode(id: "c1", at: TestTime.at(6), storing: replay, recording: exchange))
            #expect(heard.heard.count == 2)
            #expect(try await plain.tokens.find(tokenHash: replay.tokenHash) == nil)
        }
    }

    /// With the server's event log: both events are stored with the exchange (SQLite: in its transaction;
    /// PostgreSQL: in its one statement, or after it when a sink waits for them, deliveries included), and a
    /// replay stores none.
    @Test func theEventLogStoresBothEventsWithTheExchangeOnEachBackend() async throws {
        for sinks in [[], [EventSinkConfiguration(name: "siem", url: "https://siem.example/in", secret: "s")]] {
            try await withEachBackend { plain in
                try await plain.apps.create(Fixture.app("1"))
                try await plain.users.create(Fixture.user("u1"))
                try await plain.codes.insert(Fixture.code("c1", app: "1", user: "u1"))
                let log = EventLog(
                    store: plain.events, sinks: sinks, clock: AdjustableClock(fixed: TestTime.at(5)),
                    random: SystemRandomSource(),
                    node: "node-a:8080", logger: StorageBackends.logger, doorbell: OutboxDoorbell())
                let storage = plain.announcingTokenEvents(to: log)
                let token = Fixture.token("t1", app: "1", user: "u1", codeID: "c1")
                let exchange: @Sendable (any TransactionEventRecorder) async throws -> Void = {
                    try await $0.record(.codeExchanged, appID: "1", personID: "u1", ["code_id": "c1"])
                }
                #expect(
                    try await storage.consumeCode(id: "c1", at: TestTime.at(5), storing: token, recording: exchange))
                let events = try #require(plain.events)
                let stored = try await events.list(EventQuery(limit: 10))
                #expect(stored.map(\.type) == [.codeExchanged, .tokenIssued])
                #expect(stored.map(\.details["code_id"]) == ["c1", nil])
                #expect(stored.map(\.details["token_id"]) == [nil, token.id])
                let deliveries = try await plain.eventDeliveries?.deliveries(eventID: stored[0].id) ?? []
                #expect(deliveries.map(\.sink) == sinks.map(\.name))

                let replay = Fixture.token("t2", app: "1", user: "u1", codeID: "c1")
                #expect(
                    try await !storage.consumeCode(id: "c1", at: TestTime.at(6), storing: replay, recording: exchange))
                #expect(try await events.list(EventQuery(limit: 10)).count == 2)
            }
        }
    }
}
