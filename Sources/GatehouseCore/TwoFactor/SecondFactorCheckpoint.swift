import Foundation

/// The login's second step for a person with a Code Generator, as a pure decision: what a typed code means.
///
/// The HTTP layer reads the person's ``TwoFactorRecord`` and the throttle, asks ``decide(_:)``, and then
/// performs the verdict (records the step or spends the recovery code, atomically, and only then logs in).
package enum SecondFactorCheckpoint {
    package struct Facts: Sendable {
        package var record: TwoFactorRecord
        /// What the person typed in the code field.
        package var typed: String
        package var now: Date
        /// Whether the guess budget for this person is spent (checked before the code is looked at).
        package var throttled: Bool

        package init(record: TwoFactorRecord, typed: String, now: Date, throttled: Bool) {
            self.record = record
            self.typed = typed
            self.now = now
            self.throttled = throttled
        }
    }

    /// Why a code is refused, with the sentence the page shows and the journal's reason.
    package enum Refusal: Sendable, Equatable {
        case empty, malformed, wrong, alreadyUsed, throttled, notEnrolled

        package var message: String {
            switch self {
            case .empty: "Enter the 6-digit code from your Code Generator."
            case .malformed: "Login codes are 6 digits. Recovery codes look like ABCD-EFGH-JK."
            case .wrong, .notEnrolled: "The code you entered isn't correct. Check your Code Generator and try again."
            case .alreadyUsed: "That code was already used. Wait for the next code and enter it."
            case .throttled: "Too many incorrect codes. For your security, wait a few minutes and try again."
            }
        }

        package var explanation: String {
            switch self {
            case .empty: "the login code field was empty"
            case .malformed: "the login code was neither 6 digits nor a recovery code's shape"
            case .wrong:
                "the login code matches neither the current 30-second step nor the one either side of it, nor an unused recovery code"
            case .alreadyUsed:
                "the login code was already used (a code is good once, RFC 6238 §5.2); the next step's code is needed"
            case .throttled: "too many wrong login codes for this person (5 per 5 minutes); the code was not checked"
            case .notEnrolled: "the person has no confirmed second factor"
            }
        }
    }

    package enum Verdict: Sendable, Equatable {
        /// A TOTP code of this step: record it as used (atomically; a lost race is ``Refusal/alreadyUsed``).
        case acceptCode(step: Int64)
        /// A recovery code with this hash: spend it (atomically; already spent is ``Refusal/wrong``).
        case acceptRecoveryCode(hash: String)
        case refuse(Refusal)
    }

    package static func decide(_ facts: Facts) -> Verdict {
        guard facts.record.isEnabled, let totp = facts.record.totp else { return .refuse(.notEnrolled) }
        if facts.throttled { return .refuse(.throttled) }
        let typed = facts.typed.trimmingCharacters(in: .whitespacesAndNewlines)
        if typed.isEmpty { return .refuse(.empty) }
        let digits = typed.filter { !$0.isWhitespace && $0 != "-" }
        if digits.count == totp.digits, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            if let step = totp.matchingStep(digits, at: facts.now, after: facts.record.lastUsedStep) {
                return .acceptCode(step: step)
            }
            // Matches only an already used step: say so, the person just needs to wait for the next code.
            if totp.matchingStep(digits, at: facts.now, after: nil) != nil { return .refuse(.alreadyUsed) }
            return .refuse(.wrong)
        }
        if let hash = RecoveryCodes.hash(typed) { return .acceptRecoveryCode(hash: hash) }
        return .refuse(.malformed)
    }

    /// The first code of an enrolment: the person shows their app computes the same codes. No step was used yet;
    /// the accepted step is recorded so the same code cannot then log in.
    package static func confirmEnrolment(secret: TOTP, typed: String, now: Date) -> Int64? {
        secret.matchingStep(typed, at: now, after: nil)
    }
}
