import GatehouseProtocol

/// The server's Graph errors, in one place: Facebook's exact wording, code, subcode and HTTP status for each
/// refusal that is not already one of `GatehouseProtocol`'s shared factories.
extension GraphError {
    // MARK: Multi-id reads

    /// Facebook's reply to `?ids=` naming objects that do not exist (or are hidden from the caller).
    package static func aliasesDoNotExist(_ ids: [String]) -> GraphError {
        GraphError(
            message: "(#803) Some of the aliases you requested do not exist: \(echo(ids.joined(separator: ",")))",
            code: 803)
    }

    // MARK: Publishing

    /// Posting to someone else's timeline, which Facebook turned off for apps in 2013.
    package static let feedToOtherUsersDisabled = GraphError(
        message: "(#200) Feed story publishing to other users is disabled for this application", code: 200,
        httpStatus: 403)

    /// A caller who may see an object but not change it.
    package static let permissionsError = GraphError(message: "(#200) Permissions error", code: 200, httpStatus: 403)

    // MARK: Requests

    /// A body over the configured limit.
    package static func requestTooLarge(limit: Int) -> GraphError {
        var error = GraphError.invalidParameter("The request body is larger than the limit of \(limit) bytes")
        error.httpStatus = 413
        return error
    }

    // MARK: Tokens

    /// A token of the form `APPID|…` that matches nothing the app has.
    package static var invalidAppToken: GraphError {
        GraphError(message: "Invalid OAuth access token signature.", type: "OAuthException", code: 190)
    }

    // MARK: FQL

    /// FQL text outside the grammar: `(#601) Parser error: unexpected 'x' at position N.`
    package static func fqlParser(_ message: String) -> GraphError {
        GraphError(message: "(#601) \(message)", code: 601)
    }

    /// A column the table does not have.
    package static func fqlNotAMember(_ column: String, table: String) -> GraphError {
        GraphError(message: "(#602) \(column) is not a member of the \(table) table.", code: 602)
    }

    /// A table FQL (as Gatehouse serves it) does not have.
    package static func fqlUnknownTable(_ table: String) -> GraphError {
        GraphError(message: "(#601) Parser error: unknown table '\(table)'.", code: 601)
    }

    /// A WHERE clause Gatehouse cannot answer (Facebook's wording for unindexed conditions).
    package static let fqlNotIndexable = GraphError(
        message: "(#604) Your statement is not indexable. The WHERE clause must contain an indexable column. "
            + "Such columns are marked with * in the tables linked from http://developers.facebook.com/docs/reference/fql ",
        code: 604)

    // MARK: Device login

    /// Poll before the person consented (Facebook's wording).
    package static let devicePending = GraphError(
        message: "This request requires the user to take a pending action", code: 31, errorSubcode: 1349174,
        errorUserTitle: "Device Login Authorization Pending",
        errorUserMsg: "User has not yet authorized your application. Continue polling.")

    /// Polled sooner than the interval allows (Facebook's wording, typo included).
    package static func deviceTooFast(interval: Int) -> GraphError {
        GraphError(
            message: "User request limit reached", code: 17, errorSubcode: 1349172,
            errorUserTitle: "OAuth Device Excessive Polling",
            errorUserMsg:
                "Your device is polling too frequently. Space your requests with a minium interval of \(interval) seconds."
        )
    }

    /// The code is past its lifetime or used (Facebook's wording).
    package static let deviceCodeExpired = GraphError(
        message: "The session has expired", code: 463, errorSubcode: 1349152, errorUserTitle: "Activation Code Expired",
        errorUserMsg: "The code you entered has expired. Please go back to your device for a new code and try again.")

    /// The person cancelled on the consent page (subcode as in the iOS SDK's `DeviceLoginError.authorizationDeclined`).
    package static let deviceDeclined = GraphError(
        message: "The user declined to authorize your application", code: 31, errorSubcode: 1349173,
        errorUserTitle: "Device Login Authorization Declined",
        errorUserMsg: "The person cancelled the login on their other device.")
}
