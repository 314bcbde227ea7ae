import Foundation

extension LoginRecoveryAttempter: GraphErrorRecoveryAttempting {
    /// Recovers a login-required or missing-permission Graph error by asking for the permissions again.
    public func attemptRecovery(from error: GraphAPIError, permissions: [String]) async -> Bool {
        await attemptRecovery(permissions: permissions)
    }
}

/// Refreshes a session's token through `AccessToken.refreshCurrentAccessToken`, which works on the
/// current token: a token that is no longer current cannot be refreshed this way.
public struct CurrentTokenRefresher: SessionTokenRefreshing {
    public init() {}

    public func refresh(_ token: AccessToken) async throws -> AccessToken {
        guard AccessToken.current == token else {
            throw CoreError(.accessTokenRequired, message: "the token is no longer current")
        }
        return try await AccessToken.refreshCurrentAccessToken()
    }
}

extension ApplicationDelegate {
    /// Facebook's `initializeSDK()`: reads the platform's settings (Info.plist on Apple platforms; the
    /// `GATEHOUSE_CONFIG_FILE` JSON file and `GATEHOUSE_*` variables elsewhere), installs the platform's
    /// token cache unless the app set its own, and connects the parts that work together by default:
    /// Graph error recovery logs in again through `LoginManager`, and sessions log in and refresh through
    /// `LoginManager` and `AccessToken.refreshCurrentAccessToken`. Restoring `AccessToken.current` and
    /// `Profile.current` from their caches happens on first read.
    ///
    /// - Parameter processEnvironment: where `GATEHOUSE_*`, `XDG_DATA_HOME` and `HOME` are read (tests pass their own).
    public func initializeSDK(processEnvironment: [String: String] = ProcessInfo.processInfo.environment) {
        let environment = GatehouseKitEnvironment.current
        environment.settings.loadPlatformDefaults(environment: processEnvironment)
        environment.installDefaultTokenCache(processEnvironment: processEnvironment)
        if ErrorRecovery.loginAttempter == nil { ErrorRecovery.loginAttempter = LoginRecoveryAttempter() }
        if Session.defaultLoginProvider == nil { Session.defaultLoginProvider = LoginManager() }
        if Session.defaultTokenRefresher == nil { Session.defaultTokenRefresher = CurrentTokenRefresher() }
    }
}

extension GatehouseKitEnvironment {
    /// The seeds' default: tokens are cached unless the app says otherwise. Installs the platform's cache
    /// when none is set: the Keychain (``KeychainTokenCache``) on Apple platforms, a ``FileTokenCache`` in
    /// ``FileTokenCache/defaultDataDirectory(environment:)`` elsewhere. A cache the app set is kept, and the
    /// app may still replace the default afterwards.
    public func installDefaultTokenCache(processEnvironment: [String: String] = ProcessInfo.processInfo.environment) {
        guard tokenCache == nil else { return }
        #if canImport(Security) && (!os(Linux) || GATEHOUSE_APPLE_STUBS)
        tokenCache = KeychainTokenCache()
        #else
        tokenCache = FileTokenCache(directory: FileTokenCache.defaultDataDirectory(environment: processEnvironment))
        #endif
    }
}
