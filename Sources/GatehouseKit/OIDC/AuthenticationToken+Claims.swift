import Foundation
import GatehouseProtocol

extension AuthenticationToken {
    /// The token's claims, as Facebook's `claims()`: nil when the payload cannot be read, or when the token
    /// was issued more than 10 minutes ago. The signature was checked when the token was accepted.
    public func claims() -> AuthenticationTokenClaims? {
        let parts = tokenString.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])), let json = try? JSONValue.parse(data),
            let claims = AuthenticationTokenClaims(json)
        else { return nil }
        let now = GatehouseKitEnvironment.current.clock.now().timeIntervalSince1970
        return claims.iat >= now - 600 ? claims : nil
    }
}
