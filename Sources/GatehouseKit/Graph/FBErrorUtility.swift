import Foundation

/// The seeds' (Facebook SDK 3.x) error categories, as `FBErrorUtility.errorCategoryForError(_:)` returns them.
/// ``ErrorCategory`` is today's finer form; this one keeps 3.x's names so the seeds' `if`s compile.
public enum FBErrorCategory: Int, Sendable, CaseIterable {
    /// Not a Facebook error (a network failure, a bad URL, …).
    case invalid = 0
    /// A temporary server problem: try again.
    case retry = 1
    /// The token lacks a permission the call needs.
    case permissions = 2
    /// The token is gone (app removed, password changed, expired, logged out): open a new session.
    case authenticationReopenSession = 3
    /// A rate limit.
    case throttling = 4
    /// The person cancelled the login or dialog.
    case userCancelled = 5
    /// Any other Graph error.
    case facebookOther = -1
    /// A request the server could not accept (never produced: Gatehouse reports these as `.facebookOther`).
    case badRequest = -2
    /// A server failure (never produced: transient failures are `.retry`).
    case server = -3

    /// 3.x's category for today's ``ErrorCategory``; `isGraphError` separates `.facebookOther` from `.invalid`.
    public init(_ category: ErrorCategory, isGraphError: Bool) {
        switch category {
        case .userCancelled: self = .userCancelled
        case .loginRequired: self = .authenticationReopenSession
        case .missingPermission: self = .permissions
        case .transient: self = .retry
        case .throttled: self = .throttling
        case .other: self = isGraphError ? .facebookOther : .invalid
        }
    }
}

/// The seeds' `FBErrorUtility`: the same decisions as ``ErrorRecovery``, under 3.x's names.
public enum FBErrorUtility {
    /// `+shouldNotifyUserForError:` — the error carries a message only the person can act on.
    public static func shouldNotifyUserForError(_ error: any Error) -> Bool {
        ErrorRecovery.shouldNotifyUser(for: error)
    }

    /// `+userMessageForError:` — that message (nil when there is none).
    public static func userMessageForError(_ error: any Error) -> String? { ErrorRecovery.userMessage(for: error) }

    /// `+errorCategoryForError:`.
    public static func errorCategoryForError(_ error: any Error) -> FBErrorCategory {
        FBErrorCategory(ErrorRecovery.category(for: error), isGraphError: error is GraphAPIError)
    }

    /// The same three under the names Swift gives Objective-C selectors.
    public static func shouldNotifyUser(for error: any Error) -> Bool { shouldNotifyUserForError(error) }
    public static func userMessage(for error: any Error) -> String? { userMessageForError(error) }
    public static func errorCategory(for error: any Error) -> FBErrorCategory { errorCategoryForError(error) }
}
