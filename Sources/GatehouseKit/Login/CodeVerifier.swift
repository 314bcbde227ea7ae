import Foundation
import GatehouseProtocol

/// A PKCE code verifier (RFC 7636) and its S256 challenge (Facebook's `CodeVerifier`).
public struct CodeVerifier: Sendable, Equatable {
    /// The verifier sent to `oauth/access_token` as `code_verifier`.
    public let value: String

    /// A fresh verifier: 72 random bytes, base64url without padding (96 characters), as Facebook makes it.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<72).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        value = Base64URL.encode(bytes)
    }

    /// Wraps an existing verifier; fails unless it is 43–128 characters of `A-Z a-z 0-9 - . _ ~`.
    public init?(string: String) {
        guard PKCE.isValidVerifier(string) else { return nil }
        value = string
    }

    /// `base64url(SHA-256(value))` without padding: the dialog's `code_challenge` for method `S256`.
    public var challenge: String {
        PKCE.challenge(verifier: value, method: "S256")!
    }
}
