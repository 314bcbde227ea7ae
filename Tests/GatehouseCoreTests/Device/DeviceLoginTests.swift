import Foundation
import GatehouseCore
import Testing

/// The device-code lifecycle as a pure state machine, with time injected.
@Suite struct DeviceLoginTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(_ status: DeviceCodeStatus = .pending, polled: Date? = nil, user: String? = nil)
        -> DeviceCodeRecord
    {
        DeviceCodeRecord(
            id: "d1", codeHash: "h", userCode: "ABCDEFGH", appID: "1", scopes: ["public_profile", "email"],
            createdAt: t0,
            expiresAt: t0.addingTimeInterval(DeviceLogin.lifetime), interval: 5, lastPolledAt: polled, status: status,
            userID: user)
    }

    @Test func pendingThenApprovedThenConsumed() {
        let (first, stored) = DeviceLogin.poll(Self.record(), now: Self.t0.addingTimeInterval(5))
        #expect(first == .pending)
        #expect(stored?.lastPolledAt == Self.t0.addingTimeInterval(5))
        let approved = try! DeviceLogin.decide(stored!, userID: "u1", approve: true, now: Self.t0.addingTimeInterval(7))
            .get()
        #expect(approved.status == .approved)
        let (outcome, spent) = DeviceLogin.poll(approved, now: Self.t0.addingTimeInterval(10))
        #expect(outcome == .issueToken(userID: "u1", scopes: ["public_profile", "email"]))
        #expect(spent?.status == .consumed)
        #expect(DeviceLogin.poll(spent!, now: Self.t0.addingTimeInterval(20)).0 == .expired)
    }

    @Test func pollingFasterThanTheIntervalIsTooFastAndKeepsThePreviousPollTime() {
        let polled = Self.t0.addingTimeInterval(5)
        let (outcome, stored) = DeviceLogin.poll(Self.record(polled: polled), now: polled.addingTimeInterval(3))
        #expect(outcome == .tooFast)
        #expect(stored == nil)
        // One second of slack for timer and network jitter.
        #expect(DeviceLogin.poll(Self.record(polled: polled), now: polled.addingTimeInterval(4)).0 == .pending)
    }

    @Test func expiryFollowsTheInjectedClock() {
        #expect(DeviceLogin.poll(Self.record(), now: Self.t0.addingTimeInterval(419)).0 == .pending)
        #expect(DeviceLogin.poll(Self.record(), now: Self.t0.addingTimeInterval(420)).0 == .expired)
        #expect(DeviceLogin.poll(Self.record(.approved, user: "u"), now: Self.t0.addingTimeInterval(421)).0 == .expired)
        #expect(
            DeviceLogin.checkEntry(Self.record(), now: Self.t0.addingTimeInterval(420)) == .failure(.unknownOrExpired))
        #expect(
            DeviceLogin.decide(Self.record(), userID: "u", approve: true, now: Self.t0.addingTimeInterval(500))
                == .failure(.unknownOrExpired))
    }

    @Test func declineIsReportedOnceThenTheCodeIsSpent() {
        let declined = try! DeviceLogin.decide(Self.record(), userID: "u", approve: false, now: Self.t0).get()
        let (outcome, stored) = DeviceLogin.poll(declined, now: Self.t0.addingTimeInterval(5))
        #expect(outcome == .declined)
        #expect(stored?.status == .consumed)
    }

    @Test func aCodeIsDecidedOnlyOnce() {
        #expect(DeviceLogin.checkEntry(nil, now: Self.t0) == .failure(.unknownOrExpired))
        #expect(DeviceLogin.checkEntry(Self.record(.approved, user: "u"), now: Self.t0) == .failure(.alreadyUsed))
        #expect(
            DeviceLogin.decide(Self.record(.declined, user: "u"), userID: "v", approve: true, now: Self.t0)
                == .failure(.alreadyUsed))
    }

    @Test func userCodesAreUnambiguousAndNormalised() {
        var counter: UInt8 = 0
        let code = DeviceLogin.makeUserCode { n in
            (0..<n).map { _ in
                counter &+= 37; return counter
            }
        }
        #expect(code.count == 8)
        #expect(code.allSatisfy { DeviceLogin.userCodeAlphabet.contains($0) })
        #expect(!code.contains("0") && !code.contains("O") && !code.contains("1") && !code.contains("I"))
        #expect(DeviceLogin.normalizeUserCode("abcd-efgh") == "ABCDEFGH")
        #expect(DeviceLogin.normalizeUserCode(" abcd efgh ") == "ABCDEFGH")
        #expect(DeviceLogin.normalizeUserCode("ABCDEFG") == nil)
        #expect(DeviceLogin.normalizeUserCode("ABCDEFG0") == nil)
        #expect(DeviceLogin.normalizeUserCode("'; DROP--") == nil)
    }
}
