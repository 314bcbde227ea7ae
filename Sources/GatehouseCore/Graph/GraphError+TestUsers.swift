import GatehouseProtocol

/// The test-user API's refusals beyond the cap and the delete (``GraphError/tooManyTestAccounts``): associating a
/// test user with a second app (`uid` and `owner_access_token`), removing it from one, and updating it.
extension GraphError {
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
}
