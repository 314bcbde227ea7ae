import Foundation
import GatehouseProtocol

/// Spellings of Facebook's Swift API (FBSDKCoreKit 18) that GatehouseKit's own types name differently
/// or did not have: each forwards to the GatehouseKit member that does the work, so an app calling
/// Facebook's name compiles unchanged. `PortingTests`' API-surface test calls every one.
extension AccessToken {
    /// The Objective-C-derived spelling (`hasGranted(permission:)`) beside Swift's `hasGranted(_:)`.
    public func hasGranted(permission: String) -> Bool { hasGranted(Permission(permission)) }

    /// `isEqualToAccessToken:` as Swift imports it.
    public func isEqual(to token: AccessToken) -> Bool { self == token }

    /// Where `AccessToken.current` persists: the current environment's token cache.
    public static var tokenCache: (any TokenCaching)? {
        get { GatehouseKitEnvironment.current.tokenCache }
        set { GatehouseKitEnvironment.current.tokenCache = newValue }
    }
}

extension AuthenticationToken {
    /// Where `AuthenticationToken.current` persists: the same cache as the access token, as in Facebook's SDK.
    public static var tokenCache: (any TokenCaching)? {
        get { GatehouseKitEnvironment.current.tokenCache }
        set { GatehouseKitEnvironment.current.tokenCache = newValue }
    }

    /// Clears the cached id_token (Facebook's `resetCurrentAuthenticationTokenCache()`); `current` keeps
    /// its value until set, as Facebook's does.
    public static func resetCurrentAuthenticationTokenCache() {
        GatehouseKitEnvironment.current.tokenCache?.authenticationToken = nil
    }
}

extension Settings {
    /// The Graph API version this SDK release was built for, whatever ``graphAPIVersion`` is set to.
    public var defaultGraphAPIVersion: String { GraphAPIVersion.current }

    /// Whether `behavior` is among ``loggingBehaviors``.
    public func isLoggingBehaviorEnabled(_ behavior: LoggingBehavior) -> Bool { loggingBehaviors.contains(behavior) }

    /// Limited Data Use options with no country or state (Facebook's one-argument form).
    public func setDataProcessingOptions(_ options: [String]?) {
        setDataProcessingOptions(options, country: 0, state: 0)
    }

    /// Facebook records the install time for App Events; Gatehouse has none, so there is nothing to record.
    public func recordInstall() {}

    /// Facebook logs which settings changed to its App Events endpoint; Gatehouse has none.
    public func logIfSDKSettingsChanged() {}
}
