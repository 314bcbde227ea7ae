/// Why a token (a session) no longer works: the `error_subcode` Facebook puts on an error 190.
///
/// Written once here and read by everyone who names one: the error factories (``GraphError``), the journal's
/// explanations, the errors the emulator injects, the account states, the SDK's error recovery and the CLI's
/// help. Facebook documents these in its access-token error table (456–468).
package enum SessionSubcode: Int, Sendable, CaseIterable {
    /// The person removed the app, or never authorized it.
    case appNotAuthorized = 458
    /// The person is held at a security checkpoint.
    case checkpointed = 459
    /// The person changed their password (or Facebook changed the session for security reasons).
    case passwordChanged = 460
    /// The token expired.
    case expired = 463
    /// The person has not confirmed their account.
    case unconfirmed = 464
    /// The session's user is invalid: a disabled or locked account.
    case invalidUser = 465
    /// The person logged out (or the token was revoked).
    case loggedOut = 467

    /// The error code every one of these rides on.
    package static let code = 190

    /// `190/460`: how developers, the console, the CLI and scenario files write it.
    package var wire: String { "\(Self.code)/\(rawValue)" }

    /// The plain-language reason, for the request journal (never the wire).
    package var explanation: String {
        switch self {
        case .appNotAuthorized: "the person has removed the app (or never authorized it), so its tokens no longer work"
        case .checkpointed: "the person is held at a security checkpoint and must follow its steps on the website"
        case .passwordChanged:
            "the token was invalidated because the person changed their password after it was issued"
        case .expired: "the access token has expired"
        case .unconfirmed: "the person has not confirmed their account"
        case .invalidUser: "the person's account is disabled (or locked), so none of their tokens work"
        case .loggedOut:
            "the token was revoked: the person logged out, it was revoked in the console, or a replayed code "
                + "revoked its family"
        }
    }

    /// What the SDK's error recovery tells the person.
    package var recoveryMessage: String {
        switch self {
        case .appNotAuthorized: "The app was removed from your account. Please log in again."
        case .checkpointed:
            "Your account needs attention. Please log in on the website and follow the instructions given."
        case .passwordChanged: "Your password has changed. Please log in again."
        case .expired: "Your session has expired. Please log in again."
        case .unconfirmed:
            "Your account is not confirmed yet. Please log in on the website and follow the instructions given."
        case .invalidUser: "Your account is disabled. Please log in on the website to find out more."
        case .loggedOut: "You have been logged out. Please log in again."
        }
    }

    /// Whether the person must act outside the app (the SDK notifies rather than only asking to log in again):
    /// every reason but plain expiry.
    package var needsThePersonsAction: Bool { self != .expired }
}
