import Foundation

/// The device-login code's lifecycle (Facebook Login for Devices) as pure functions of the stored
/// record and the injected clock's "now". The HTTP layer loads the record, asks here what happens,
/// and stores the returned record with a compare-and-set so racing polls cannot both win.
///
/// ```
/// pending ──person consents──▶ approved ──poll──▶ consumed (token issued)
///    │    ──person cancels───▶ declined ──poll──▶ consumed (declined reported)
///    └── expires_at passes: every later poll answers "expired"
/// ```
package enum DeviceLogin {
    /// How long a code lives (Facebook: 420 s).
    package static let lifetime: TimeInterval = 420
    /// Seconds between polls that Gatehouse asks for (Facebook: 5).
    package static let defaultInterval = 5
    /// A poll may come this much earlier than `interval` before it counts as too fast (timer and network jitter).
    package static let pollSlack: TimeInterval = 1

    /// What a `POST /device/login_status` answers.
    package enum PollOutcome: Sendable, Equatable {
        /// Code 31, subcode 1349174: keep polling.
        case pending
        /// Code 17, subcode 1349172: polled sooner than `interval` after the previous poll.
        case tooFast
        /// Code 463, subcode 1349152: the code is past its lifetime or already used.
        case expired
        /// Code 31, subcode 1349173: the person cancelled on the consent page.
        case declined
        /// Mint a token for this person; the code is spent.
        case issueToken(userID: String, scopes: [String])
    }

    /// The outcome of a poll at `now` and the record to store (nil: store nothing).
    package static func poll(_ record: DeviceCodeRecord, now: Date) -> (PollOutcome, DeviceCodeRecord?) {
        if record.status == .consumed || now >= record.expiresAt { return (.expired, nil) }
        if let last = record.lastPolledAt, now.timeIntervalSince(last) < TimeInterval(record.interval) - pollSlack {
            // The previous poll time is kept, so a device polling a little fast still gets through next time.
            return (.tooFast, nil)
        }
        var next = record
        next.lastPolledAt = now
        switch record.status {
        case .pending:
            return (.pending, next)
        case .declined:
            next.status = .consumed
            return (.declined, next)
        case .approved:
            guard let userID = record.userID else { return (.expired, nil) }
            next.status = .consumed
            return (.issueToken(userID: userID, scopes: record.scopes), next)
        case .consumed:
            return (.expired, nil)
        }
    }

    /// Why the person's code could not be used on `/device`.
    package enum EntryProblem: Error, Sendable, Equatable {
        /// No code like it, or it is past its lifetime.
        case unknownOrExpired
        /// Someone already consented or cancelled with it.
        case alreadyUsed
    }

    /// Checks a code the person typed, before the consent page is shown.
    package static func checkEntry(_ record: DeviceCodeRecord?, now: Date) -> Result<DeviceCodeRecord, EntryProblem> {
        guard let record, now < record.expiresAt else { return .failure(.unknownOrExpired) }
        guard record.status == .pending else { return .failure(.alreadyUsed) }
        return .success(record)
    }

    /// The record after the person consented (`approve: true`) or cancelled.
    package static func decide(_ record: DeviceCodeRecord, userID: String, approve: Bool, now: Date) -> Result<
        DeviceCodeRecord, EntryProblem
    > {
        if case .failure(let problem) = checkEntry(record, now: now) { return .failure(problem) }
        var next = record
        next.status = approve ? .approved : .declined
        next.userID = userID
        next.decidedAt = now
        return .success(next)
    }

    // MARK: User codes

    /// Letters and digits that cannot be confused when read off a TV (no 0/O, 1/I/L).
    package static let userCodeAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    package static let userCodeLength = 8

    /// A user code from random bytes (rejection sampling keeps it uniform).
    package static func makeUserCode(randomBytes: (Int) -> [UInt8]) -> String {
        let alphabet = userCodeAlphabet
        let limit = UInt8(256 - 256 % alphabet.count)
        var out = ""
        while out.count < userCodeLength {
            for b in randomBytes(userCodeLength * 2) where b < limit {
                out.append(alphabet[Int(b) % alphabet.count])
                if out.count == userCodeLength { break }
            }
        }
        return out
    }

    /// What the person typed, made comparable: uppercase, spaces and dashes removed. Nil if it cannot be a code.
    package static func normalizeUserCode(_ typed: String) -> String? {
        let cleaned = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard cleaned.count == userCodeLength, cleaned.allSatisfy({ userCodeAlphabet.contains($0) }) else { return nil }
        return cleaned
    }
}
