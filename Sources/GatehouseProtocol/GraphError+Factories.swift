import Foundation

/// Facebook's errors with their exact codes, messages and HTTP statuses.
///
/// Messages are copied verbatim from real responses because client libraries and app code match
/// on them (for instance to detect an expired session), so a paraphrase would break them. Each factory gives its
/// plain-language ``GraphError/explanation`` for the request journal beside the message, where the two are made.
extension GraphError {
    private static let validatingToken = "Error validating access token: "

    // MARK: Access tokens (190 family)

    /// A token that is not even shaped like one.
    package static let invalidTokenFormat = GraphError(
        message: "Invalid OAuth access token - Cannot parse access token", code: 190,
        explanation: "the access token is not one this server issued: unknown, malformed, too long, or for a deleted "
            + "app or person")

    /// A token past its expiry. Facebook states both times in Pacific time.
    package static func tokenExpired(expiredAt: Date, now: Date) -> GraphError {
        GraphError(
            message: validatingToken + "Session has expired on \(pacificTimestamp(expiredAt)). "
                + "The current time is \(pacificTimestamp(now)).",
            code: SessionSubcode.code, errorSubcode: SessionSubcode.expired.rawValue,
            explanation: SessionSubcode.expired.explanation)
    }

    /// A token for a user who has removed the app (or never installed it).
    package static func appNotAuthorized(appID: String) -> GraphError {
        GraphError(
            message: validatingToken + "The user has not authorized application \(appID).",
            code: SessionSubcode.code, errorSubcode: SessionSubcode.appNotAuthorized.rawValue,
            explanation: SessionSubcode.appNotAuthorized.explanation)
    }

    /// A token invalidated by a password change.
    package static let passwordChanged = GraphError(
        message: validatingToken + "The session has been invalidated because the user changed their password "
            + "or Facebook has changed the session for security reasons.",
        code: SessionSubcode.code, errorSubcode: SessionSubcode.passwordChanged.rawValue,
        explanation: SessionSubcode.passwordChanged.explanation)

    /// A token of a person held at a security checkpoint: they must log in on the website and follow its steps.
    package static let checkpointed = GraphError(
        message: validatingToken
            + "You cannot access the app till you log in to www.facebook.com and follow the instructions given.",
        code: SessionSubcode.code, errorSubcode: SessionSubcode.checkpointed.rawValue,
        explanation: SessionSubcode.checkpointed.explanation)

    /// A token of a person who has not confirmed their account. Facebook leaves the user's name out, so the
    /// message has two spaces where it would stand.
    package static let unconfirmedUser = GraphError(
        message: validatingToken + "Sessions for the user  are not allowed because the user is not a confirmed user.",
        code: SessionSubcode.code, errorSubcode: SessionSubcode.unconfirmed.rawValue,
        explanation: SessionSubcode.unconfirmed.explanation)

    /// A token of a person whose account is disabled or locked. Facebook documents subcode 465 as "The session
    /// user is invalid" (its access-token error table, 456-468); the message is that sentence after the usual
    /// prefix. No captured response for a disabled account was found, so this is the documented meaning, not a copy.
    package static let accountDisabled = GraphError(
        message: validatingToken + "The session user is invalid.",
        code: SessionSubcode.code, errorSubcode: SessionSubcode.invalidUser.rawValue,
        explanation: SessionSubcode.invalidUser.explanation)

    /// A token invalidated by logging out.
    package static let sessionLoggedOut = GraphError(
        message: validatingToken + "The session is invalid because the user logged out.",
        code: SessionSubcode.code, errorSubcode: SessionSubcode.loggedOut.rawValue,
        explanation: SessionSubcode.loggedOut.explanation)

    /// A batch of more than ``GraphBatch/maximumEntries`` calls.
    package static let tooManyInBatch = GraphError(
        message: "(#1) Too many requests in batch message. Maximum batch size is \(GraphBatch.maximumEntries)",
        type: "OAuthException", code: 1,
        explanation: "a batch may hold at most \(GraphBatch.maximumEntries) requests")

    /// A request without any token.
    package static let tokenRequired = GraphError(
        message: "An access token is required to request this resource.", code: 104,
        explanation: "no access token was sent (neither an access_token parameter nor an Authorization header)")

    /// `/me` with an app token or no user.
    package static let activeTokenRequired = GraphError(
        message: "An active access token must be used to query information about the current user.", code: 2500,
        explanation: "/me needs a user access token; this call had an app or client token, or none")

    /// A path this server does not route; `components` is echoed as given, e.g. `/x`, cut to ``echoLimit``.
    package static func unknownPath(_ components: String) -> GraphError {
        GraphError(
            message: "Unknown path components: \(echo(components))", code: 2500,
            explanation: "the path \(echo(components)) is not a Graph route this server knows")
    }

    // MARK: Permissions and parameters

    /// An edge or field that needs a permission the token lacks.
    package static func missingPermission(_ name: String) -> GraphError {
        GraphError(
            message: "(#200) Requires extended permission: \(name)", code: 200, httpStatus: 403,
            explanation: "the token was not granted the permission \(name)")
    }

    /// A bad parameter; `message` is the text after `(#100) `.
    package static func invalidParameter(_ message: String) -> GraphError {
        GraphError(message: "(#100) \(message)", code: 100, explanation: "a parameter is invalid: \(message)")
    }

    /// A `fields` entry the node type does not have.
    package static func nonexistingField(_ field: String, nodeType: String) -> GraphError {
        invalidParameter("Tried accessing nonexisting field (\(echo(field))) on node type (\(nodeType))")
    }

    /// An object id that does not exist, is hidden, or does not support `method`.
    package static func unsupportedRequest(method: String, objectID: String) -> GraphError {
        GraphError(
            message: "Unsupported \(method.lowercased()) request. Object with ID '\(echo(objectID))' does not exist, "
                + "cannot be loaded due to missing permissions, or does not support this operation. "
                + "Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api",
            type: "GraphMethodException", code: 100, errorSubcode: 33,
            explanation: "the object does not exist, is hidden from this caller, or does not support this method")
    }

    /// "Require App Secret" is on and the call has no proof.
    package static let appsecretProofRequired = GraphError(
        message: "API calls from the server require an appsecret_proof argument",
        type: "GraphMethodException", code: 100,
        explanation: "the app has “Require App Secret” on and the call carried no appsecret_proof")

    /// A proof that does not match, rejected even when proofs are optional.
    package static let appsecretProofInvalid = GraphError(
        message: "Invalid appsecret_proof provided in the API argument",
        type: "GraphMethodException", code: 100,
        explanation: "appsecret_proof does not match: it was computed with a different secret or token")

    // MARK: Token endpoint

    /// A code older than its lifetime.
    package static let codeExpired = GraphError(
        message: "This authorization code has expired.", code: 100, errorSubcode: 36007,
        explanation: "the authorization code is older than its 10-minute life")

    /// A `redirect_uri` that differs from the dialog's.
    package static let redirectURIMismatch = GraphError(
        message: "Error validating verification code. Please make sure your redirect_uri is identical "
            + "to the one you used in the OAuth dialog request",
        code: 100, errorSubcode: 36008,
        explanation: "redirect_uri differs from the one the login dialog was opened with; it must be identical")

    /// A code presented a second time.
    package static let codeUsed = GraphError(
        message: "This authorization code has been used.", code: 100, errorSubcode: 36009,
        explanation: "the code was already exchanged; the tokens minted from it have been revoked")

    /// A code this server never issued.
    package static let invalidCodeFormat = GraphError(
        message: "Invalid verification code format.", code: 100,
        explanation: "the code is unknown to this server, belongs to another app, or is malformed")

    /// A wrong `client_secret`; code 1 here is neither transient nor a 500.
    package static let invalidClientSecret = GraphError(
        message: "Error validating client secret.", code: 1,
        explanation: "client_secret does not match the app's secret")

    /// An unknown `client_id`.
    package static let invalidApplicationID = GraphError(
        message: "Error validating application. Invalid application ID.", code: 101,
        explanation: "no app has this client_id, or it is not the app the token belongs to")

    /// No `client_id` at all.
    package static let missingClientID = GraphError(
        message: "Missing client_id parameter.", code: 101,
        explanation: "the request has no client_id (nor Basic credentials)")

    /// A PKCE verifier that does not match the challenge.
    package static let invalidCodeVerifier = GraphError(
        message: "Invalid code verifier.", code: 100,
        explanation: "the PKCE code_verifier does not hash to the code_challenge the dialog was sent")

    /// A verifier sent for a code issued without a challenge (a downgrade attempt, RFC 9700 §4.8).
    package static let unexpectedCodeVerifier = GraphError(
        message: "A code_verifier was sent but the login dialog was not sent a code_challenge.", code: 100,
        explanation:
            "a code_verifier was sent for a code issued without a code_challenge (a PKCE downgrade is refused)")

    /// A code or nonce issued without a challenge, redeemed for an app that requires PKCE (RFC 7636 §4.4.1).
    package static let codeChallengeRequired = GraphError(
        message: "This app requires PKCE: the login dialog must be sent a code_challenge.", code: 100,
        explanation: "the app requires PKCE, and this code or nonce was issued without a code_challenge")

    // MARK: Server-side and throttling

    /// An unexpected failure; clients retry.
    package static let unknownError = GraphError(
        message: "An unknown error has occurred.", code: 1, isTransient: true, httpStatus: 500,
        explanation: "the server failed unexpectedly while answering (see the server's log); clients retry")

    /// A temporary outage; clients retry.
    package static let serviceUnavailable = GraphError(
        message: "An unexpected error has occurred. Please retry your request later.",
        code: 2, isTransient: true, httpStatus: 500,
        explanation: "a storage operation failed (see the server's log); clients retry")

    /// The database behind the server cannot be reached (e.g. PostgreSQL restarting): HTTP 503, and clients
    /// retry. Facebook answers such outages with code 2 and `is_transient`.
    package static let temporarilyUnavailable = GraphError(
        message: "(#2) Service temporarily unavailable", code: 2, isTransient: true, httpStatus: 503,
        explanation: "the database could not be reached (is PostgreSQL restarting?); clients retry")

    /// The app's call budget is spent.
    package static let appRateLimit = GraphError(
        message: "(#4) Application request limit reached", code: 4, httpStatus: 403,
        explanation: "the app's Graph call budget for this window is spent (limits.app_calls_per_window)")

    /// One user's call budget is spent.
    package static let userRateLimit = GraphError(
        message: "(#17) User request limit reached", code: 17, httpStatus: 403,
        explanation: "this person's Graph call budget for this app is spent (limits.user_calls_per_window)")

    /// A per-endpoint limit.
    package static let apiRateLimit = GraphError(
        message: "(#613) Calls to this api have exceeded the rate limit.", code: 613, httpStatus: 403,
        explanation: "too many calls from this client to this endpoint (limits.token_endpoint_calls_per_ip or the "
            + "device-login limits)")

    // MARK: Helpers

    /// Formats like `Saturday, 11-Dec-21 05:00:00 PST`; a fresh formatter per call because
    /// `DateFormatter` is not `Sendable` and expiry errors are rare.
    static func pacificTimestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "America/Los_Angeles")
        formatter.dateFormat = "EEEE, dd-MMM-yy HH:mm:ss zzz"
        return formatter.string(from: date)
    }
}
