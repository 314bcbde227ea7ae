import Foundation

/// Where the current tokens persist between launches (Facebook's `TokenCaching`; the seeds' token cache).
///
/// Implementations: `FileTokenCache` (Linux default, mode 0600), `KeychainTokenCache` (Apple platforms),
/// `InMemoryTokenCache`, and the app's own (e.g. a remote cache).
public protocol TokenCaching: AnyObject, Sendable {
    var accessToken: AccessToken? { get set }
    var authenticationToken: AuthenticationToken? { get set }
}
