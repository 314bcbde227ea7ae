import Foundation
import GatehouseProtocol

/// Where a person's account stands, as Facebook reports it: on the Graph API (the 190 subcode every token of the
/// person answers) and in the login dialog (the page shown instead of, or before, the consent step).
///
/// Kept on the person (`users.account_state`, migration 12), so it lasts until changed: from the console, the CLI
/// (`gatehouse users state`), the admin API (`PATCH /people/{id}` with `account_state`) or a scenario file. A
/// change is a write of the person, so every node's cached callers of that person are dropped
/// (`InvalidatingUserStore` announces `user:ID`). The raw values are the wire and file spelling.
///
/// Later states (a password change pending, deletion) extend this enum; every switch over it is exhaustive, so
/// the compiler lists each place a new state must be answered.
package enum AccountState: String, Sendable, Codable, CaseIterable {
    /// Nothing stands in the way.
    case active
    /// Held at a security checkpoint: tokens answer 190/459; the dialog shows the checkpoint page, which the person
    /// passes once (Continue) to go on to the login code (if any) and consent.
    case checkpointed
    /// Not yet confirmed: tokens answer 190/464; the dialog asks the person to confirm their email.
    case unconfirmed
    /// Disabled (or locked) by Facebook or an administrator: tokens answer 190/465; the dialog refuses to log in.
    case disabled
    /// Every session invalidated (logged out everywhere): tokens answer 190/467 and browser sessions end. The
    /// next password login clears it.
    case loggedOut = "logged-out"

    /// Parses the raw value, or a few spellings people type (`logged_out`, `session-invalidated`, `locked`).
    package init?(spec: String) {
        let normalized = spec.lowercased().replacingOccurrences(of: "_", with: "-")
        switch normalized {
        case "session-invalidated", "invalid-session", "loggedout": self = .loggedOut
        case "locked": self = .disabled
        case "checkpoint": self = .checkpointed
        default:
            guard let state = AccountState(rawValue: normalized) else { return nil }
            self = state
        }
    }

    /// The Graph error every token of a person in this state answers; nil while tokens work.
    package var graphError: GraphError? {
        switch self {
        case .active: nil
        case .checkpointed: .checkpointed
        case .unconfirmed: .unconfirmedUser
        case .disabled: .accountDisabled
        case .loggedOut: .sessionLoggedOut
        }
    }

    /// Whether putting a person in this state ends what they are signed in with (browser sessions, and for
    /// `loggedOut` their tokens too), so they must log in again to meet the state's page.
    package var endsSessions: Bool { self != .active }

    /// A short description for the console and the CLI.
    package var title: String {
        switch self {
        case .active: "active"
        case .checkpointed: "checkpointed (\(SessionSubcode.checkpointed.wire)): must pass a security check"
        case .unconfirmed: "unconfirmed (\(SessionSubcode.unconfirmed.wire)): must confirm their email"
        case .disabled: "disabled (\(SessionSubcode.invalidUser.wire)): cannot log in"
        case .loggedOut: "logged out everywhere (\(SessionSubcode.loggedOut.wire)): must log in again"
        }
    }
}
