import Foundation

/// Which token a request is sent with, decided the way Facebook's `GraphRequestConnection` decides.
///
/// Order: the request's `tokenString`, then its `access_token` parameter, then `AccessToken.current`,
/// then the app's client token `"{appID}|{clientToken}"` unless the request has `.skipClientToken`.
/// Facebook throws an exception when it needs a client token and none is configured; here that is
/// `CoreError(.accessTokenRequired)`.
struct GraphTokenResolver: Sendable, Equatable {
    /// Where the chosen token came from.
    enum Source: Sendable, Equatable {
        case request, parameter, current, client
        /// `.skipClientToken` and nothing else: the request goes without a token.
        case none
    }

    struct Choice: Sendable, Equatable {
        var token: String?
        var source: Source
    }

    var appID: String?
    var clientToken: String?
    var currentToken: String?

    /// The `"{appID}|{clientToken}"` token, or nil when either part is missing.
    var clientAccessToken: String? {
        guard let appID, !appID.isEmpty, let clientToken, !clientToken.isEmpty else { return nil }
        return "\(appID)|\(clientToken)"
    }

    func choose(tokenString: String?, parameterToken: String?, flags: GraphRequestFlags) throws(CoreError) -> Choice {
        if let tokenString, !tokenString.isEmpty { return Choice(token: tokenString, source: .request) }
        if let parameterToken, !parameterToken.isEmpty { return Choice(token: parameterToken, source: .parameter) }
        if let currentToken, !currentToken.isEmpty { return Choice(token: currentToken, source: .current) }
        if flags.contains(.skipClientToken) { return Choice(token: nil, source: .none) }
        guard let clientAccessToken else {
            throw CoreError(
                .accessTokenRequired,
                message:
                    "No access token: log in, pass a token, or configure Settings.appID and Settings.clientToken for anonymous calls"
            )
        }
        return Choice(token: clientAccessToken, source: .client)
    }

    /// Whether `token` is this app's client token (never the target of invalidation or login recovery).
    func isClientToken(_ token: String?) -> Bool {
        guard let token, let clientToken, !clientToken.isEmpty else { return false }
        return token.hasSuffix("|" + clientToken)
    }
}

/// What a Graph error does to `AccessToken.current` (Facebook's rule in `GraphRequestConnection`).
///
/// Only errors about the current person's own token count: the request's token must be the current
/// token's, the code 190 (invalid token) or 102 (API session), and the request must not have
/// `.doNotInvalidateTokenOnError`. Subcode 493 keeps the token but marks it expired; anything else
/// logs the person out locally.
enum TokenInvalidation: Sendable, Equatable {
    case none
    /// `AccessToken.current = nil`.
    case clearCurrent
    /// `AccessToken.current` = the same token with an expiration date in the past.
    case expireCurrent

    static let invalidatingCodes: Set<Int> = [190, 102]
    static let expireOnlySubcode = 493

    static func action(
        for error: any Error, requestToken: String?, currentToken: String?,
        flags: GraphRequestFlags
    ) -> TokenInvalidation {
        guard let error = error as? GraphAPIError, !flags.contains(.doNotInvalidateTokenOnError),
            let requestToken, requestToken == currentToken, invalidatingCodes.contains(error.code)
        else { return .none }
        return error.subcode == expireOnlySubcode ? .expireCurrent : .clearCurrent
    }

    /// Applies the action to `environment`'s current token. `expireCurrent` keeps every other field.
    /// `cause` travels in the change notification (``AccessTokenInvalidationErrorKey``), so an open
    /// `Session` closed by it can tell its handler why.
    func apply(in environment: GatehouseKitEnvironment, cause: (any Error)? = nil) {
        switch self {
        case .none:
            return
        case .clearCurrent:
            environment.setCurrentAccessToken(nil, cause: cause)
        case .expireCurrent:
            guard let token = environment.currentAccessToken else { return }
            environment.setCurrentAccessToken(
                AccessToken(
                    tokenString: token.tokenString, permissions: token.permissions.map(\.name),
                    declinedPermissions: token.declinedPermissions.map(\.name),
                    expiredPermissions: token.expiredPermissions.map(\.name),
                    appID: token.appID, userID: token.userID, expirationDate: .distantPast,
                    refreshDate: token.refreshDate,
                    dataAccessExpirationDate: token.dataAccessExpirationDate, loginType: token.loginType))
        }
    }
}
