import Foundation

/// What the login dialog's redirect carries, read the way the Facebook iOS SDK reads it.
///
/// The rules mirror `LoginURLCompleter` in facebook-ios-sdk so that an app built against Gatehouse's
/// SDK sees the same outcome it would with Facebook's: dates are parsed from the string values (the
/// real SDK's `as? TimeInterval` casts quietly turn them into `distantFuture`; that quirk is not copied).
package struct LoginCallback: Sendable, Equatable {
    /// How the login ended, by the iOS SDK's rules.
    package enum Outcome: Sendable, Equatable {
        /// A token, code, id_token or nonce came back.
        case success
        /// Nothing usable and no `error_message`, which includes `error=access_denied` without one.
        case cancelled
        /// An error with `error_message`; `error` is the `error` parameter, or the message if absent.
        case failed(error: String, code: String?, message: String)
    }

    /// Every parameter of the redirect, query merged with fragment.
    package var parameters: [String: String]

    /// Reads the parameters of a redirect URL; nil if the URL cannot be split into components.
    package init?(url: URL) {
        guard URLComponents(url: url, resolvingAgainstBaseURL: false) != nil else { return nil }
        self.init(parameters: Self.parameters(of: url))
    }

    /// Wraps already-decoded parameters.
    package init(parameters: [String: String]) {
        self.parameters = parameters
    }

    /// Query parameters merged with fragment parameters, the fragment winning, both decoded as
    /// form data (`+` is a space). Facebook's `#_=_` marker on code redirects is dropped, and
    /// undecodable pairs are skipped rather than failing the whole callback.
    package static func parameters(of url: URL) -> [String: String] {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in lenientPairs(components.percentEncodedQuery) {
            result[key] = value
        }
        if components.percentEncodedFragment != "_=_" {
            for (key, value) in lenientPairs(components.percentEncodedFragment) {
                result[key] = value
            }
        }
        return result
    }

    private static func lenientPairs(_ text: String?) -> [(String, String)] {
        guard let text else { return [] }
        return text.split(separator: "&").flatMap { FormEncoding.decode(String($0)) ?? [] }
    }

    // MARK: Raw values

    /// `access_token`.
    package var accessToken: String? { parameters["access_token"] }
    /// `code`, for the PKCE exchange.
    package var code: String? { parameters["code"] }
    /// `id_token`, the Limited Login JWT.
    package var idToken: String? { parameters["id_token"] }
    /// `state`, echoed from the dialog; the iOS SDK puts JSON holding its `challenge` here.
    package var state: String? { parameters["state"] }
    /// `error`, e.g. `access_denied`.
    package var error: String? { parameters["error"] }
    /// `error_code`, e.g. `200`.
    package var errorCode: String? { parameters["error_code"] }
    /// `error_message`; only its presence turns an error into a failure.
    package var errorMessage: String? { parameters["error_message"] }
    /// `error_description`, which web redirects use instead of `error_message`.
    package var errorDescription: String? { parameters["error_description"] }
    /// `error_reason`, e.g. `user_denied`.
    package var errorReason: String? { parameters["error_reason"] }
    /// `signed_request`.
    package var signedRequest: String? { parameters["signed_request"] }
    /// `graph_domain`, e.g. `facebook`.
    package var graphDomain: String? { parameters["graph_domain"] }
    /// `nonce`, to exchange with `grant_type=fb_exchange_nonce`.
    package var nonce: String? { parameters["nonce"] }
    /// `user_token_nonce`, which the iOS SDK stores and sends with the next login.
    package var userTokenNonce: String? { parameters["user_token_nonce"] }

    // MARK: Derived values

    /// `granted_scopes` split on commas; `[]` when present but empty, nil when absent.
    package var grantedScopes: [String]? { Self.commaList(parameters["granted_scopes"]) }
    /// `denied_scopes` split on commas; `[]` when present but empty, nil when absent.
    package var deniedScopes: [String]? { Self.commaList(parameters["denied_scopes"]) }

    /// `expires_in`, seconds from now.
    package var expiresIn: TimeInterval? { Self.positiveNumber(parameters["expires_in"]) }

    /// The absolute expiry from `expires` or else `expires_at` (the iOS SDK's preference), epoch
    /// seconds; zero or negative values mean none was given.
    package var expiresAt: Date? {
        (Self.positiveNumber(parameters["expires"]) ?? Self.positiveNumber(parameters["expires_at"]))
            .map(Date.init(timeIntervalSince1970:))
    }

    /// `data_access_expiration_time`, epoch seconds.
    package var dataAccessExpirationTime: Date? {
        Self.positiveNumber(parameters["data_access_expiration_time"]).map(Date.init(timeIntervalSince1970:))
    }

    /// The user id: a non-empty `user_id` parameter, else `user_id` from the unverified payload of
    /// `signed_request` (the app has no secret to check it with).
    package var userID: String? {
        if let direct = parameters["user_id"], !direct.isEmpty { return direct }
        guard let signedRequest, let payload = SignedRequest.unverifiedPayload(signedRequest) else { return nil }
        switch payload["user_id"] {
        case .string(let text)?: return text
        case .int(let number)?: return String(number)
        default: return nil
        }
    }

    /// The outcome under the iOS SDK's rules: success with a non-empty `access_token`, or exactly
    /// one of `code`/`id_token`, or exactly one of `nonce`/`id_token`; otherwise a failure only when
    /// `error_message` is present; otherwise cancelled.
    package var outcome: Outcome {
        let hasToken = !(accessToken ?? "").isEmpty
        let hasCode = !(code ?? "").isEmpty
        let hasIDToken = !(idToken ?? "").isEmpty
        let hasNonce = !(nonce ?? "").isEmpty
        if hasToken || hasCode != hasIDToken || hasNonce != hasIDToken {
            return .success
        }
        if let errorMessage {
            return .failed(error: error ?? errorMessage, code: errorCode, message: errorMessage)
        }
        return .cancelled
    }

    private static func commaList(_ text: String?) -> [String]? {
        guard let text else { return nil }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func positiveNumber(_ text: String?) -> TimeInterval? {
        guard let text, let number = TimeInterval(text), number.isFinite, number > 0 else { return nil }
        return number
    }
}
