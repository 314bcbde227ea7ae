import GatehouseProtocol

/// The server's Graph errors, in one place: Facebook's exact wording, code, subcode and HTTP status for each
/// refusal that is not already one of `GatehouseProtocol`'s shared factories, each with its journal explanation.
extension GraphError {
    // MARK: Multi-id reads

    /// Facebook's reply to `?ids=` naming objects that do not exist (or are hidden from the caller).
    package static func aliasesDoNotExist(_ ids: [String]) -> GraphError {
        GraphError(
            message: "(#803) Some of the aliases you requested do not exist: \(echo(ids.joined(separator: ",")))",
            code: 803, explanation: "?ids= named objects that do not exist or are hidden from the caller")
    }

    // MARK: Publishing

    /// Posting to someone else's timeline, which Facebook turned off for apps in 2013.
    package static let feedToOtherUsersDisabled = GraphError(
        message: "(#200) Feed story publishing to other users is disabled for this application", code: 200,
        httpStatus: 403,
        explanation: "apps may only post to the token's own person's timeline, not to someone else's")

    /// A caller who may see an object but not change it.
    package static let permissionsError = GraphError(
        message: "(#200) Permissions error", code: 200, httpStatus: 403,
        explanation:
            "the caller may see this object but not change it (only its author, the person it was sent to, or the app may)"
    )

    // MARK: Requests

    /// A body over the configured limit.
    package static func requestTooLarge(limit: Int) -> GraphError {
        var error = GraphError.invalidParameter("The request body is larger than the limit of \(limit) bytes")
        error.httpStatus = 413
        error.explanation = "the request body is larger than max_body_bytes"
        return error
    }

    // MARK: Tokens

    /// A token of the form `APPID|…` that matches nothing the app has.
    package static var invalidAppToken: GraphError {
        GraphError(
            message: "Invalid OAuth access token signature.", type: "OAuthException", code: 190,
            explanation:
                "the app token APPID|… matches neither the app's secret, its client token, nor an app token minted for it"
        )
    }

    /// `debug_token` asked about a token of another app than the caller's: an app may inspect only its own.
    package static let inputTokenOfAnotherApp = GraphError(
        message: "(#100) The App_id in the input_token did not match the Viewing App", type: "OAuthException",
        code: 100,
        explanation: "debug_token was asked about another app's token; an app may inspect only its own tokens")

    /// A call that only the app itself may make (its test users), made with another token.
    package static let appTokenRequired = GraphError(
        message: "(#15) This method must be called with an app access_token.", type: "OAuthException", code: 15,
        explanation: "this call needs an app access token (APPID|SECRET or one from client_credentials)")

    // MARK: Test users

    /// The app has as many test users as `limits.test_users_per_app` allows (Facebook's wording).
    package static let tooManyTestAccounts = GraphError(
        message: "(#2900) Too many test accounts", type: "OAuthException", code: 2900,
        explanation: "the app already has as many test users as limits.test_users_per_app allows")

    /// A friend request where either side is not a test user of the calling app.
    package static let notTestUsers = GraphError(
        message: "(#2902) Both users must be test users of this app", type: "OAuthException", code: 2902,
        explanation: "both people must be test users of this app")

    /// Deleting a test user with the token of an app it does not belong to.
    package static let cannotDeleteTestAccount = GraphError(
        message: "(#2903) Cannot delete this test account", type: "OAuthException", code: 2903,
        explanation: "only an app the test user belongs to may delete it")

    // Adding a test user to a second app (`uid`, `owner_access_token`), and removing it from one (issue 41).

    /// `owner_access_token` resolves to no app token (an unknown, expired or person's token).
    package static let ownerAccessTokenInvalid = GraphError(
        message: "(#100) owner_access_token must be the app access token of an app the test user belongs to",
        code: 100,
        explanation: "owner_access_token is not a valid app token (APPID|SECRET or one from client_credentials)")

    /// `uid` is not a test user of the app `owner_access_token` belongs to.
    package static func notTestUserOfOwner(_ uid: String) -> GraphError {
        GraphError(
            message: "(#100) \(echo(uid)) is not a test user of the app owner_access_token belongs to", code: 100,
            explanation: "uid must be a test user of the app whose token is owner_access_token")
    }

    /// The test user already belongs to the app it is being associated with.
    package static let testUserAlreadyAssociated = GraphError(
        message: "(#100) The test user is already associated with this app", code: 100,
        explanation: "the test user already belongs to this app")

    /// `uid` names no test user of the calling app (removal).
    package static func notTestUserOfApp(_ uid: String) -> GraphError {
        GraphError(
            message: "(#100) \(echo(uid)) is not a test user of this app", code: 100,
            explanation: "uid must be a test user of the app whose token made the call")
    }

    /// Removing a test user from the only app it belongs to (Facebook's code and wording for this edge).
    package static let cannotRemoveTestAccount = GraphError(
        message: "(#2902) Cannot remove test account from this app", type: "OAuthException", code: 2902,
        explanation: "a test user must belong to at least one app: delete it instead (DELETE /{test-user-id})")

    // MARK: The admin routes outside v1

    /// No admin token and no console session.
    package static let adminSessionRequired = GraphError(
        message: "An admin session is required: log in at /console/login.", code: 190, httpStatus: 401,
        explanation: "the admin API needs a signed-in admin (production mode)")

    /// An admin token that is unknown or revoked.
    package static let adminTokenUnknown = GraphError(
        message: "The admin token is unknown or revoked.", code: 190, httpStatus: 401,
        explanation: "the admin token is unknown to this server or was revoked")

    /// An admin token that may not do this (`detail` says why, e.g. that it is read-only).
    package static func adminForbidden(_ detail: String) -> GraphError {
        GraphError(
            message: "Forbidden: \(detail).", code: 200, httpStatus: 403,
            explanation: "the admin token may not do this: \(detail)")
    }

    // MARK: FQL

    /// FQL text outside the grammar: `(#601) Parser error: unexpected 'x' at position N.`
    package static func fqlParser(_ message: String) -> GraphError {
        GraphError(
            message: "(#601) \(message)", code: 601,
            explanation: "the FQL query could not be parsed")
    }

    /// A column the table does not have.
    package static func fqlNotAMember(_ column: String, table: String) -> GraphError {
        GraphError(
            message: "(#602) \(column) is not a member of the \(table) table.", code: 602,
            explanation: "the FQL query names a column its table does not have")
    }

    /// A table FQL (as Gatehouse serves it) does not have.
    package static func fqlUnknownTable(_ table: String) -> GraphError {
        GraphError(
            message: "(#601) Parser error: unknown table '\(table)'.", code: 601,
            explanation: "the FQL query names a table Gatehouse does not serve")
    }

    /// A WHERE clause Gatehouse cannot answer (Facebook's wording for unindexed conditions).
    package static let fqlNotIndexable = GraphError(
        message: "(#604) Your statement is not indexable. The WHERE clause must contain an indexable column. "
            + "Such columns are marked with * in the tables linked from http://developers.facebook.com/docs/reference/fql ",
        code: 604,
        explanation: "the FQL WHERE clause has no condition on an indexable column (such as uid = me())")

    // MARK: Device login

    /// Poll before the person consented (Facebook's wording).
    package static let devicePending = GraphError(
        message: "This request requires the user to take a pending action", code: 31, errorSubcode: 1349174,
        errorUserTitle: "Device Login Authorization Pending",
        errorUserMsg: "User has not yet authorized your application. Continue polling.",
        explanation: "the person has not yet approved the device's code; keep polling")

    /// Polled sooner than the interval allows (Facebook's wording, typo included).
    package static func deviceTooFast(interval: Int) -> GraphError {
        GraphError(
            message: "User request limit reached", code: 17, errorSubcode: 1349172,
            errorUserTitle: "OAuth Device Excessive Polling",
            errorUserMsg:
                "Your device is polling too frequently. Space your requests with a minium interval of \(interval) seconds.",
            explanation: "the device polled sooner than the \(interval)-second interval allows")
    }

    /// The code is past its lifetime or used (Facebook's wording).
    package static let deviceCodeExpired = GraphError(
        message: "The session has expired", code: 463, errorSubcode: 1349152, errorUserTitle: "Activation Code Expired",
        errorUserMsg: "The code you entered has expired. Please go back to your device for a new code and try again.",
        explanation: "the device code expired or was already used")

    /// The person cancelled on the consent page (subcode as in the iOS SDK's `DeviceLoginError.authorizationDeclined`).
    package static let deviceDeclined = GraphError(
        message: "The user declined to authorize your application", code: 31, errorSubcode: 1349173,
        errorUserTitle: "Device Login Authorization Declined",
        errorUserMsg: "The person cancelled the login on their other device.",
        explanation: "the person declined the device login")
}
