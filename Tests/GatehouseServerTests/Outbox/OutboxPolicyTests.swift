import Foundation
import GatehouseCore
import GatehouseServer
import Logging
import Testing

/// The rules every outbox shares (issue 40, item 4): the two schedules, what an attempt's outcome does to a row,
/// the journal's words for what comes next, and the generic outbox driving a row through them to a give-up.
@Suite struct OutboxPolicyTests {
    static let t0 = Date(timeIntervalSince1970: 8 * 3600)

    static func message(attempts: Int) -> MailMessageRecord {
        MailMessageRecord(
            id: "m1", kind: "confirm_email", userID: nil, to: "a@example.com", subject: "s", text: "t", html: "h",
            createdAt: t0, attempts: attempts, nextAttemptAt: t0)
    }

    @Test func eachOutboxHasItsScheduleAndTheSameLease() {
        #expect(OutboxPolicy.mail.backoff == [30, 120, 600, 1800, 3600, 10800])
        #expect(OutboxPolicy.appCallbacks.backoff == [30, 120, 600, 1800, 3600, 10800, 21600, 43200])
        #expect(OutboxPolicy.mail.attemptLimit == 7)
        #expect(OutboxPolicy.appCallbacks.attemptLimit == 9)
        #expect(OutboxPolicy.mail.lease == 120 && OutboxPolicy.appCallbacks.lease == 120)
        let mail = OutboxPolicy.mail
        #expect(mail.nextAttempt(afterFailedAttempts: 0, now: Self.t0) == nil)
        #expect(mail.nextAttempt(afterFailedAttempts: 6, now: Self.t0) == Self.t0.addingTimeInterval(10800))
        #expect(mail.nextAttempt(afterFailedAttempts: 7, now: Self.t0) == nil)
    }

    @Test func aDeliveryEndsTheScheduleAndKeepsOnlyAWarning() {
        let policy = OutboxPolicy.mail
        let done = policy.settle(Self.message(attempts: 2), .delivered(), at: Self.t0.addingTimeInterval(5))
        #expect(done.deliveredAt == Self.t0.addingTimeInterval(5))
        #expect(done.nextAttemptAt == nil && done.lastError == nil && done.gaveUpAt == nil && done.attempts == 2)
        #expect(policy.sequel(of: done) == nil)
        let warned = policy.settle(Self.message(attempts: 1), .delivered(warning: "no code"), at: Self.t0)
        #expect(warned.deliveredAt == Self.t0 && warned.lastError == "no code" && warned.nextAttemptAt == nil)
    }

    @Test func aFailureWaitsByTheScheduleThenGivesUp() {
        let policy = OutboxPolicy.mail
        let failed = policy.settle(Self.message(attempts: 2), .failed("exit 75"), at: Self.t0)
        #expect(failed.lastError == "exit 75")
        #expect(failed.nextAttemptAt == Self.t0.addingTimeInterval(120))
        #expect(failed.gaveUpAt == nil && failed.deliveredAt == nil)
        #expect(policy.sequel(of: failed) == "attempt 2 of 7, next at 08:02:00")
        let last = policy.settle(Self.message(attempts: 7), .failed("exit 75"), at: Self.t0)
        #expect(last.nextAttemptAt == nil && last.gaveUpAt == Self.t0)
        #expect(policy.sequel(of: last) == "Gatehouse gave up after 7 attempts")
    }

    @Test func theOutboxTriesEachWaitOnceThenGivesUp() async throws {
        let clock = AdjustableClock(fixed: Self.t0)
        let store = MemoryOutboxStore()
        await store.insert(Self.message(attempts: 0))
        let delivery = RefusingDelivery()
        let outbox = Outbox(
            store: store, delivery: delivery, policy: .mail, clock: clock, logger: Logger(label: "test"))
        var tried: [Int] = []
        for wait in [0] + OutboxPolicy.mail.backoff {
            clock.advance(by: wait - 1)
            #expect(await outbox.deliverDue().isEmpty)
            clock.advance(by: 1)
            tried += await outbox.deliverDue().map(\.attempts)
        }
        #expect(tried == [1, 2, 3, 4, 5, 6, 7])
        let stored = try #require(await store.find(id: "m1"))
        #expect(stored.gaveUpAt == clock.now() && stored.nextAttemptAt == nil && stored.lastError == "refused")
        #expect(delivery.reports.value == [nil, nil, nil, nil, nil, nil, "Gatehouse gave up after 7 attempts"])
        clock.advance(by: 86_400)
        #expect(await outbox.deliverDue().isEmpty)
    }

    @Test func aRowAnotherWorkerClaimedIsLeftToIt() async throws {
        let clock = AdjustableClock(fixed: Self.t0)
        let store = MemoryOutboxStore()
        await store.insert(Self.message(attempts: 0))
        #expect(await store.claim(id: "m1", expectedNextAttemptAt: Self.t0, leaseUntil: Self.t0 + 120))
        let outbox = Outbox(
            store: store, delivery: RefusingDelivery(), policy: .mail, clock: clock, logger: Logger(label: "test"))
        #expect(await outbox.attempt(Self.message(attempts: 0)) == nil)
        // The other worker died mid-attempt: the lease runs out and the row is due again.
        clock.advance(by: 120)
        #expect(await outbox.deliverDue().map(\.attempts) == [1])
    }
}

/// Refuses every message, and keeps each report's journal words about the next attempt (nil while retrying).
private struct RefusingDelivery: OutboxDelivery {
    let reports = Reports()

    func deliver(_ item: inout MailMessageRecord) async -> OutboxAttempt { OutboxAttempt(.failed("refused")) }

    func finished(_ item: MailMessageRecord, _ report: OutboxReport) {
        let sequel = report.sequel
        reports.append(sequel?.hasPrefix("attempt") == true ? nil : sequel)
    }
}

private final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String?] = []
    var value: [String?] { lock.withLock { values } }
    func append(_ sequel: String?) { lock.withLock { values.append(sequel) } }
}

/// The outbox contract over a dictionary, as the SQL table keeps it.
private actor MemoryOutboxStore: OutboxStore {
    var rows: [String: MailMessageRecord] = [:]

    func insert(_ item: MailMessageRecord) { rows[item.id] = item }
    func find(id: String) -> MailMessageRecord? { rows[id] }
    func due(now: Date, limit: Int) -> [MailMessageRecord] {
        Array(rows.values.filter { ($0.nextAttemptAt ?? .distantFuture) <= now }.prefix(limit))
    }
    func claim(id: String, expectedNextAttemptAt: Date, leaseUntil: Date) -> Bool {
        guard rows[id]?.nextAttemptAt == expectedNextAttemptAt else { return false }
        rows[id]?.nextAttemptAt = leaseUntil
        return true
    }
    func update(_ item: MailMessageRecord) throws {
        guard rows[item.id] != nil else { throw StorageError.notFound }
        rows[item.id] = item
    }
}
