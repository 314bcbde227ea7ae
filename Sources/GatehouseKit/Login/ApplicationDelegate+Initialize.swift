import Foundation

extension LoginRecoveryAttempter: GraphErrorRecoveryAttempting {
    /// Recovers a login-required or missing-permission Graph error by asking for the permissions again.
    public func attemptRecovery(from error: GraphRequestError, permissions: [String]) async -> Bool {
        await attemptRecovery(permissions: permissions)
    }
}

/// Refreshes a session's token through `AccessToken.refreshCurrentAccessToken`, which works on the
/// current token: a token that is no longer current cannot be refreshed this way.
public struct CurrentTokenRefresher: SessionTokenRefreshing {
    public init() {}

    public func refresh(_ token: AccessToken) async throws -> AccessToken {
        guard AccessToken.current == token else { throw CoreError(.accessTokenRequired, message: "the token is no longer current") }
        return try await AccessToken.refreshCurrentAccessToken()
    }
}

extension ApplicationDelegate {
    /// Facebook's `initializeSDK()`: reads `GATEHOUSE_*` settings from the environment and connects the
    /// parts that work together by default: Graph error recovery logs in again through `LoginManager`,
    /// and sessions log in and refresh through `LoginManager` and `AccessToken.refreshCurrentAccessToken`.
    /// Restoring `AccessToken.current` and `Profile.current` from their caches happens on first read.
    public func initializeSDK() {
        Settings.shared.loadFromEnvironment()
        if ErrorRecovery.loginAttempter == nil { ErrorRecovery.loginAttempter = LoginRecoveryAttempter() }
        if Session.defaultLoginProvider == nil { Session.defaultLoginProvider = LoginManager() }
        if Session.defaultTokenRefresher == nil { Session.defaultTokenRefresher = CurrentTokenRefresher() }
    }
}
