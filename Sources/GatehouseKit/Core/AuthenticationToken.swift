import Foundation

/// The OpenID Connect id_token from a Limited Login (Facebook's `AuthenticationToken`).
///
/// Verification and claims arrive with Limited Login; this type carries the token and its cache slot.
public final class AuthenticationToken: Codable, Equatable, Sendable {
    public let tokenString: String
    public let nonce: String
    /// `facebook` or `gaming`.
    public let graphDomain: String

    public init(tokenString: String, nonce: String, graphDomain: String = "facebook") {
        self.tokenString = tokenString
        self.nonce = nonce
        self.graphDomain = graphDomain
    }

    /// The current id_token. Setting it writes the cache; Facebook posts no notification for it.
    public static var current: AuthenticationToken? {
        get { GatehouseKitEnvironment.current.currentAuthenticationToken }
        set { GatehouseKitEnvironment.current.setCurrentAuthenticationToken(newValue) }
    }

    public static func == (a: AuthenticationToken, b: AuthenticationToken) -> Bool {
        a.tokenString == b.tokenString && a.nonce == b.nonce && a.graphDomain == b.graphDomain
    }
}
