import Foundation
import GatehouseCore
import Testing

@Suite struct SecondFactorCheckpointTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = Base32.encode(Array("12345678901234567890".utf8))
    static let totp = TOTP(secret: Array("12345678901234567890".utf8))
    static let step = totp.step(at: now)

    static func record(confirmed: Bool = true, lastUsed: Int64? = nil) -> TwoFactorRecord {
        TwoFactorRecord(
            userID: "1", secret: secret, createdAt: now, confirmedAt: confirmed ? now : nil, lastUsedStep: lastUsed)
    }

    static func decide(_ typed: String, record: TwoFactorRecord = record(), throttled: Bool = false)
        -> SecondFactorCheckpoint.Verdict
    {
        SecondFactorCheckpoint.decide(.init(record: record, typed: typed, now: now, throttled: throttled))
    }

    @Test("the current code, and the one before, are accepted with their step")
    func accepts() {
        #expect(Self.decide(Self.totp.code(step: Self.step)) == .acceptCode(step: Self.step))
        #expect(Self.decide(" " + Self.totp.code(step: Self.step - 1) + "\n") == .acceptCode(step: Self.step - 1))
    }

    @Test("a used code is refused as used; a wrong one as wrong; a malformed or empty one says what a code looks like")
    func refuses() {
        let code = Self.totp.code(step: Self.step)
        #expect(Self.decide(code, record: Self.record(lastUsed: Self.step)) == .refuse(.alreadyUsed))
        let wrong = code == "000000" ? "000001" : "000000"
        #expect(Self.decide(wrong) == .refuse(.wrong))
        #expect(Self.decide("12ab") == .refuse(.malformed))
        #expect(Self.decide("  ") == .refuse(.empty))
    }

    @Test("throttled: the code is not even looked at; not enrolled or unconfirmed: refused")
    func throttledAndUnconfirmed() {
        #expect(Self.decide(Self.totp.code(step: Self.step), throttled: true) == .refuse(.throttled))
        #expect(
            Self.decide(Self.totp.code(step: Self.step), record: Self.record(confirmed: false)) == .refuse(.notEnrolled)
        )
    }

    @Test("a recovery code's shape is spent by its hash, whatever the case and dashes")
    func recoveryCodes() {
        var bytes: [UInt8] = Array(0...255)
        let codes = RecoveryCodes.make(count: 3) { bytes.removeFirst() }
        #expect(codes.count == 3)
        #expect(codes.allSatisfy { $0.count == 12 && $0.split(separator: "-").map(\.count) == [4, 4, 2] })
        #expect(Set(codes).count == 3)
        let hash = RecoveryCodes.hash(codes[0])!
        #expect(Self.decide(codes[0]) == .acceptRecoveryCode(hash: hash))
        #expect(
            Self.decide(codes[0].lowercased().replacingOccurrences(of: "-", with: ""))
                == .acceptRecoveryCode(hash: hash))
        #expect(RecoveryCodes.hash("0000-1111-OO") == nil)
    }

    @Test("LoginAttempt: a correct password starts the session unless a confirmed second factor asks for a code")
    func afterPassword() {
        #expect(LoginAttempt.afterPassword(secondFactor: nil) == .startSession)
        #expect(LoginAttempt.afterPassword(secondFactor: Self.record(confirmed: false)) == .startSession)
        #expect(LoginAttempt.afterPassword(secondFactor: Self.record()) == .askLoginCode)
    }

    @Test("the challenge cookie opens for the same person and password, within ten minutes, untampered")
    func challenge() async {
        let key = Array(repeating: UInt8(7), count: 32)
        let changed = Date(timeIntervalSince1970: 1_700_000_000)
        let value = SecondFactorChallenge(userID: "100", issuedAt: Self.now).sealed(
            key: key, passwordChangedAt: changed)
        func open(_ text: String, at now: Date = Self.now, changedNow: Date? = changed, key: [UInt8] = key) async
            -> SecondFactorChallenge?
        {
            await SecondFactorChallenge.open(text, key: key, now: now) { $0 == "100" ? .some(changedNow) : .none }
        }
        #expect(await open(value) == SecondFactorChallenge(userID: "100", issuedAt: Self.now))
        #expect(await open(value, at: Self.now.addingTimeInterval(601)) == nil)
        #expect(await open(value, changedNow: Self.now) == nil)
        #expect(await open(value, key: Array(repeating: 8, count: 32)) == nil)
        #expect(await open(value.replacingOccurrences(of: "100.", with: "101.")) == nil)
        #expect(await open("garbage") == nil)

        // The checkpoint flag is signed: added to or removed from a value, the MAC no longer holds.
        let passed = SecondFactorChallenge(userID: "100", issuedAt: Self.now, passedCheckpoint: true)
        let flagged = passed.sealed(key: key, passwordChangedAt: changed)
        #expect(flagged.hasPrefix("100.\(Int(Self.now.timeIntervalSince1970)).c."))
        #expect(await open(flagged) == passed)
        #expect(await open(flagged.replacingOccurrences(of: ".c.", with: ".")) == nil)
        let parts = value.split(separator: ".")
        #expect(await open("\(parts[0]).\(parts[1]).c.\(parts[2])") == nil)
        #expect(await open("\(parts[0]).\(parts[1]).x.\(parts[2])") == nil)
    }
}
