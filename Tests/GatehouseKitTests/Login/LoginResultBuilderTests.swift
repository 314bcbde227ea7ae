import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import Testing

@Suite struct LoginResultBuilderTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func expectations(tracking: LoginTracking = .enabled, requested: Set<String> = ["email", "user_friends"])
        -> LoginExpectations
    {
        LoginExpectations(
            challenge: "c", nonce: "nonce-9", codeVerifier: CodeVerifier(), redirectURI: "fb1://authorize/",
            tracking: tracking, requestedPermissions: requested)
    }

    static let parameters = LoginTokenParameters(
        accessToken: "EAAnew", userID: "77", expirationDate: now.addingTimeInterval(5400),
        dataAccessExpirationDate: now.addingTimeInterval(90 * 86400), grantedPermissions: ["public_profile", "email"],
        declinedPermissions: ["user_friends", "user_birthday"], graphDomain: "facebook")

    static func build(
        _ parameters: LoginTokenParameters = parameters, tracking: LoginTracking = .enabled,
        requested: Set<String> = ["email", "user_friends"],
        previous: AccessToken? = nil
    ) -> LoginManagerLoginResult {
        LoginResultBuilder.result(
            parameters: parameters, expectations: expectations(tracking: tracking, requested: requested),
            previousToken: previous,
            appID: "app-1", now: now)
    }

    @Test func firstLoginReportsAllGrantedAndRequestedDeclines() throws {
        let result = Self.build()
        #expect(!result.isCancelled)
        #expect(result.grantedPermissions == ["public_profile", "email"])
        #expect(result.declinedPermissions == ["user_friends"])
        let token = try #require(result.token)
        #expect(token.tokenString == "EAAnew")
        #expect(token.appID == "app-1")
        #expect(token.userID == "77")
        #expect(token.permissions == [.publicProfile, .email])
        #expect(token.declinedPermissions == [.userFriends, .userBirthday])
        #expect(token.expiredPermissions.isEmpty)
        #expect(token.expirationDate == Self.now.addingTimeInterval(5400))
        #expect(token.refreshDate == Self.now)
        #expect(token.dataAccessExpirationDate == Self.now.addingTimeInterval(90 * 86400))
        #expect(result.authenticationToken == nil)
    }

    @Test func reloginReportsOnlyGrantedThatWereRequested() {
        let result = Self.build(previous: LoginTest.token(userID: "77"))
        #expect(result.grantedPermissions == ["email"])
        #expect(result.declinedPermissions == ["user_friends"])
        #expect(result.token?.permissions == [.publicProfile, .email])
    }

    @Test func missingDatesBecomeDistantFuture() throws {
        var parameters = Self.parameters
        parameters.expirationDate = nil
        parameters.dataAccessExpirationDate = nil
        let token = try #require(Self.build(parameters).token)
        #expect(token.expirationDate == .distantFuture)
        #expect(token.dataAccessExpirationDate == .distantFuture)
    }

    @Test func emptyGrantedScopesIsCancelledButKeepsTheIDToken() throws {
        var parameters = Self.parameters
        parameters.grantedPermissions = []
        parameters.idToken = "h.p.s"
        let result = Self.build(parameters)
        #expect(result.isCancelled)
        #expect(result.token == nil)
        #expect(result.authenticationToken?.tokenString == "h.p.s")
        #expect(result.grantedPermissions.isEmpty && result.declinedPermissions.isEmpty)
    }

    @Test func idTokenIsKeptWithTheExpectedNonce() throws {
        var parameters = Self.parameters
        parameters.idToken = "h.p.s"
        parameters.graphDomain = "gaming"
        let result = Self.build(parameters)
        let authentication = try #require(result.authenticationToken)
        #expect(authentication == AuthenticationToken(tokenString: "h.p.s", nonce: "nonce-9", graphDomain: "gaming"))
        #expect(result.token != nil)
    }

    @Test func limitedLoginNeverYieldsAnAccessToken() {
        var parameters = Self.parameters
        parameters.idToken = "h.p.s"
        let result = Self.build(parameters, tracking: .limited)
        #expect(result.token == nil)
        #expect(result.authenticationToken?.tokenString == "h.p.s")
        #expect(!result.isCancelled)

        parameters.idToken = nil
        #expect(Self.build(parameters, tracking: .limited).isCancelled)
    }

    @Test func noTokenAndNoIDTokenIsCancelled() {
        var parameters = Self.parameters
        parameters.accessToken = nil
        #expect(Self.build(parameters).isCancelled)
    }
}
