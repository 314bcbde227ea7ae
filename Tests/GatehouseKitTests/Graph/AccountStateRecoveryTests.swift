import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import Testing

/// Issue 30, item 4: the errors the server answers for a person's account state, read as the SDK reads a
/// response, fall in the category the seeds describe: the session is gone (`loginRequired`, the seeds'
/// `FBErrorCategoryAuthenticationReopenSession`), and the person is told, because only they can act on it
/// outside the app (the seeds' unconfirmed-account example of `shouldNotifyUserForError:`).
@Suite struct AccountStateRecoveryTests {
    /// The bodies `AccountStateTests` (GatehouseServerTests) receives from the server, byte for byte.
    static let bodies: [(subcode: Int, body: String, message: String)] = [
        (
            459,
            #"{"error":{"message":"Error validating access token: You cannot access the app till you log in to "#
                + #"www.facebook.com and follow the instructions given.","type":"OAuthException","code":190,"error_subcode":459}}"#,
            "Your account needs attention. Please log in on the website and follow the instructions given."
        ),
        (
            464,
            #"{"error":{"message":"Error validating access token: Sessions for the user  are not allowed because "#
                + #"the user is not a confirmed user.","type":"OAuthException","code":190,"error_subcode":464}}"#,
            "Your account is not confirmed yet. Please log in on the website and follow the instructions given."
        ),
        (
            465,
            #"{"error":{"message":"Error validating access token: The session user is invalid.","#
                + #""type":"OAuthException","code":190,"error_subcode":465}}"#,
            "Your account is disabled. Please log in on the website to find out more."
        ),
        (
            467,
            #"{"error":{"message":"Error validating access token: The session is invalid because the user logged "#
                + #"out.","type":"OAuthException","code":190,"error_subcode":467}}"#,
            "You have been logged out. Please log in again."
        ),
    ]

    @Test(arguments: bodies.indices) func eachStatesErrorIsALoginErrorThePersonIsToldAbout(index: Int) throws {
        let (subcode, body, message) = Self.bodies[index]
        let error = try #require(GraphAPIError(body: try JSONValue.parse(Data(body.utf8)), httpStatusCode: 400))
        #expect(error.code == 190)
        #expect(error.subcode == subcode)
        #expect(ErrorRecovery.category(for: error) == .loginRequired)
        #expect(ErrorRecovery.shouldNotifyUser(for: error))
        #expect(ErrorRecovery.userMessage(for: error) == message)
    }

    /// The recovery policy offers a new login for them, as for any login error on the current token.
    @Test func recoveryOffersALogin() throws {
        let error = try #require(
            GraphAPIError(body: try JSONValue.parse(Data(Self.bodies[2].body.utf8)), httpStatusCode: 400))
        let token = AccessToken(
            tokenString: "t", permissions: ["email"], declinedPermissions: [], expiredPermissions: [], appID: "1",
            userID: "2",
            expirationDate: nil, refreshDate: nil, dataAccessExpirationDate: nil)
        let policy = GraphRecoveryPolicy(recoveryEnabledCount: 1, attempterInstalled: true)
        #expect(
            policy.action(for: error, flags: [], requestToken: "t", current: token, isClientToken: false)
                == .attemptLogin(permissions: ["email"]))
    }
}
