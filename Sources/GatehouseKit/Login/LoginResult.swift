import Foundation

/// The ObjC-style login callback: a result, or an error (Facebook's `LoginManagerLoginResultBlock`).
public typealias LoginManagerLoginResultBlock = @Sendable (LoginManagerLoginResult?, (any Error)?) -> Void

/// The Swift login callback (Facebook's `LoginResultBlock`).
public typealias LoginResultBlock = @Sendable (LoginResult) -> Void

/// How a login ended (Facebook's `LoginResult`).
public enum LoginResult: Sendable {
    /// Logged in. `granted` and `declined` describe this request only; `token` is nil after a Limited Login.
    case success(granted: Set<Permission>, declined: Set<Permission>, token: AccessToken?)
    case cancelled
    case failed(any Error)

    /// Facebook's bridge from the ObjC-style callback: an error wins, a missing result is `LoginError(.unknown)`.
    public init(result: LoginManagerLoginResult?, error: (any Error)?) {
        if let error {
            self = .failed(error)
        } else if let result {
            self =
                result.isCancelled
                ? .cancelled
                : .success(
                    granted: Set(result.grantedPermissions.map { Permission($0) }),
                    declined: Set(result.declinedPermissions.map { Permission($0) }), token: result.token)
        } else {
            self = .failed(LoginError(.unknown))
        }
    }
}

/// What a login produced (Facebook's `LoginManagerLoginResult`).
public final class LoginManagerLoginResult: Sendable, CustomStringConvertible {
    /// The new access token; nil when cancelled and after a Limited Login.
    public let token: AccessToken?
    /// The id_token, when the server sent one.
    public let authenticationToken: AuthenticationToken?
    /// True when no token came back (the person cancelled, or granted nothing).
    public let isCancelled: Bool
    /// The permissions granted by this request (see the login rules for how a re-login narrows them).
    public let grantedPermissions: Set<String>
    /// The requested permissions that were declined.
    public let declinedPermissions: Set<String>

    /// Facebook's initialiser.
    public init(
        token: AccessToken?, authenticationToken: AuthenticationToken?, isCancelled: Bool,
        grantedPermissions: Set<String>, declinedPermissions: Set<String>
    ) {
        self.token = token
        self.authenticationToken = authenticationToken
        self.isCancelled = isCancelled
        self.grantedPermissions = grantedPermissions
        self.declinedPermissions = declinedPermissions
    }

    /// The result Facebook reports for a cancelled login.
    static let cancelled = LoginManagerLoginResult(
        token: nil, authenticationToken: nil, isCancelled: true, grantedPermissions: [], declinedPermissions: [])

    /// Never prints token strings.
    public var description: String {
        "LoginManagerLoginResult(cancelled: \(isCancelled), user: \(token?.userID ?? "none"), "
            + "granted: \(grantedPermissions.sorted()), declined: \(declinedPermissions.sorted()))"
    }
}
