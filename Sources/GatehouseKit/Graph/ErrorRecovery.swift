import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What kind of failure an error is, for deciding what to tell the person (the seeds' `FBErrorCategory`).
public enum ErrorCategory: Sendable, Equatable, CaseIterable {
    /// The person or the app cancelled (a cancelled connection, task or dialog).
    case userCancelled
    /// The token is gone or invalid: log in again (codes 190, 102; subcodes 458–467; no token at all).
    case loginRequired
    /// The token lacks a permission the call needs (codes 10, 200–299): ask for it and retry.
    case missingPermission
    /// A temporary server problem (codes 1, 2, 9, 341, or `is_transient`): retry.
    case transient
    /// A rate limit (codes 4, 17, 32, 613): back off.
    case throttled
    /// Anything else, usually a bug in the request.
    case other
}

/// Something that can fix a login or permission error, usually by logging the person in again.
///
/// The Login module installs one in `ErrorRecovery.loginAttempter`. `GraphRequestConnection` calls it when
/// a request that allows error recovery fails with `.loginRequired` or `.missingPermission` for the
/// current person's token (never for a client token), and only when it is the connection's single
/// request with recovery enabled. If it returns true the request is retried once with the then-current token.
public protocol GraphErrorRecoveryAttempting: Sendable {
    /// - Parameters:
    ///   - error: the Graph error to recover from.
    ///   - permissions: the permissions to ask for: those the error names as missing, else the current
    ///     token's granted permissions (what Facebook's `LoginRecoveryAttempter` re-requests).
    /// - Returns: whether the person now has a token worth retrying with.
    func attemptRecovery(from error: GraphAPIError, permissions: [String]) async -> Bool
}

/// Classifies errors and words them for people (the seeds' `FBErrorUtility`, in today's form), and holds
/// the login recovery hook.
public enum ErrorRecovery {
    /// Set by the Login module; nil means login and permission errors are returned as they are.
    /// Held by `GatehouseKitEnvironment.current` (Facebook's is process-wide; here an environment installed
    /// for one task keeps its own, so its connections never call another environment's attempter).
    public static var loginAttempter: (any GraphErrorRecoveryAttempting)? {
        get { GatehouseKitEnvironment.current.loginAttempter }
        set { GatehouseKitEnvironment.current.loginAttempter = newValue }
    }

    static let loginCodes: Set<Int> = [190, 102]
    static let loginSubcodes = Set(SessionSubcode.allCases.map(\.rawValue))
    /// The token died for a reason only the person can act on outside the app (the seeds' "the user hasn't
    /// verified their Facebook account" case): 465 is a disabled (or locked) account.
    static let notifySubcodes = Set(SessionSubcode.allCases.filter(\.needsThePersonsAction).map(\.rawValue))
    static let transientCodes: Set<Int> = [1, 2, 9, 341]
    static let throttledCodes: Set<Int> = [4, 17, 32, 613]

    /// The category of any error the SDK returns.
    public static func category(for error: any Error) -> ErrorCategory {
        switch error {
        case is CancellationError:
            return .userCancelled
        case let error as URLError where error.code == .cancelled:
            return .userCancelled
        case SessionError.loginCancelled:
            // A Session reports a cancelled or abandoned dialog this way.
            return .userCancelled
        case let error as CoreError where error.code == .accessTokenRequired:
            return .loginRequired
        case let error as LoginError
        where [.passwordChanged, .userCheckpointed, .unconfirmedUser, .missingAccessToken].contains(error.code):
            return .loginRequired
        case let error as GraphAPIError:
            return category(code: error.code, subcode: error.subcode, isTransient: error.isTransient)
        default:
            return .other
        }
    }

    /// The category of a Graph error's `code`, `error_subcode` and `is_transient`.
    public static func category(code: Int, subcode: Int?, isTransient: Bool) -> ErrorCategory {
        if loginCodes.contains(code) || subcode.map(loginSubcodes.contains) == true { return .loginRequired }
        if code == 10 || (200...299).contains(code) { return .missingPermission }
        if throttledCodes.contains(code) { return .throttled }
        if transientCodes.contains(code) || isTransient { return .transient }
        return .other
    }

    /// Whether the error carries a message the person should see because only they can act on it:
    /// the server sent `error_user_msg`, or the token died for a reason outside the app (app removed,
    /// account checkpointed, password changed, account unconfirmed, account disabled, logged out).
    public static func shouldNotifyUser(for error: any Error) -> Bool {
        guard let error = error as? GraphAPIError else { return false }
        if let message = error.userMessage, !message.isEmpty { return true }
        return category(for: error) == .loginRequired && error.subcode.map(notifySubcodes.contains) == true
    }

    /// The server's `error_user_msg`, else a default for the error's subcode or category; nil for
    /// cancellations and uncategorised errors, where the app knows best what to say.
    public static func userMessage(for error: any Error) -> String? {
        if let error = error as? GraphAPIError, let message = error.userMessage, !message.isEmpty { return message }
        if let error = error as? GraphAPIError, let subcode = error.subcode, let message = subcodeMessages[subcode] {
            return message
        }
        switch category(for: error) {
        case .loginRequired: return "Your session is no longer valid. Please log in again."
        case .missingPermission: return "The app needs your permission to do this. Please grant it and try again."
        case .transient: return "Something went wrong. Please try again."
        case .throttled: return "Too many requests right now. Please try again later."
        case .userCancelled, .other: return nil
        }
    }

    static let subcodeMessages = Dictionary(
        uniqueKeysWithValues: SessionSubcode.allCases.map { ($0.rawValue, $0.recoveryMessage) })

    /// Permission names a missing-permission message mentions, e.g. `user_friends` in
    /// "(#200) Requires extended permission: user_friends" or "(#10) Requires pages_read_engagement permission".
    public static func missingPermissions(in error: GraphAPIError) -> [String] {
        let message = error.message
        var names: [String] = []
        if let range = message.range(of: "permission: ") ?? message.range(of: "permissions: ") {
            names = message[range.upperBound...].split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        } else if let range = message.range(of: "Requires "),
            let end = message.range(of: " permission", range: range.upperBound..<message.endIndex)
        {
            names = message[range.upperBound..<end.lowerBound].split(whereSeparator: { $0 == "," || $0 == " " }).map(
                String.init)
        }
        return names.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ".")) }
            .filter { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0 == "_" || $0 == "." } }
    }
}

/// Whether a failed request is retried, and how (Facebook's `GraphErrorRecoveryProcessor` rules).
///
/// Recovery happens only for the single request of a connection that has recovery enabled (Facebook
/// gives up when several could need it), only once (the retry runs with `.disableErrorRecovery`), and:
/// - transient errors (`ErrorCategory.transient`) are retried as they are;
/// - login and permission errors for the current person's own token (never a client token) go to
///   `ErrorRecovery.loginAttempter`, when one is installed, and are retried if it succeeds.
///
/// Rate-limit errors are not retried: an immediate second call would hit the same limit (Facebook
/// retries codes 4 and 17 once; GatehouseKit classifies them as `.throttled` instead).
enum GraphRecoveryAction: Sendable, Equatable {
    case none
    /// Send the same request again.
    case retry
    /// Ask the login attempter for these permissions, then retry with the new current token.
    case attemptLogin(permissions: [String])
}

struct GraphRecoveryPolicy: Sendable {
    /// How many of the connection's requests have recovery enabled.
    var recoveryEnabledCount: Int
    var attempterInstalled: Bool

    func action(
        for error: any Error, flags: GraphRequestFlags, requestToken: String?, current: AccessToken?,
        isClientToken: Bool
    ) -> GraphRecoveryAction {
        guard recoveryEnabledCount == 1, !flags.contains(.disableErrorRecovery),
            let graphError = error as? GraphAPIError
        else { return .none }
        switch ErrorRecovery.category(for: graphError) {
        case .transient:
            return .retry
        case .loginRequired, .missingPermission:
            guard attempterInstalled, !isClientToken, let current, let requestToken,
                requestToken == current.tokenString
            else { return .none }
            var permissions =
                ErrorRecovery.category(for: graphError) == .missingPermission
                ? ErrorRecovery.missingPermissions(in: graphError) : []
            if permissions.isEmpty { permissions = current.permissions.map(\.name).sorted() }
            return .attemptLogin(permissions: permissions)
        case .throttled, .userCancelled, .other:
            return .none
        }
    }
}
