import Foundation

/// How one pass through the login dialog ended, as a ``Session`` needs to know it.
public enum SessionLoginOutcome: Sendable {
    /// The dialog returned this token (its `permissions`/`declinedPermissions` say what was granted).
    case success(AccessToken)
    /// The person cancelled.
    case cancelled
    /// The dialog or the exchange failed.
    case failed(any Error)
}

/// Runs the login dialog for a ``Session``. `LoginManager` satisfies it; tests use fakes.
///
/// Called for the first login (`open(allowLoginUI: true)`) and for `requestNew*Permissions`.
/// The implementation may set `AccessToken.current` itself (as `LoginManager` does); the session
/// then sets the same token, which posts nothing.
public protocol SessionLoginProviding: Sendable {
    /// - Parameters:
    ///   - permissions: the permissions to ask for (only the new ones when asking for more).
    ///   - authType: `"rerequest"` when asking again for permissions the person declined, else nil.
    ///   - defaultAudience: who sees posts made with publish permissions.
    func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async -> SessionLoginOutcome
}

/// Extends a token's life for ``Session/refresh()``. `AccessToken.refreshCurrentAccessToken` (the
/// `fb_extend_sso_token` + `me/permissions` batch) satisfies it.
public protocol SessionTokenRefreshing: Sendable {
    /// Returns the refreshed token for the same person, or throws.
    func refresh(_ token: AccessToken) async throws -> AccessToken
}
