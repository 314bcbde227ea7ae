import Foundation
import Testing
import GatehouseProtocol

@Suite struct LoginCallbackTests {
    private func callback(_ url: String) throws -> LoginCallback {
        let parsed = try #require(URL(string: url))
        return try #require(LoginCallback(url: parsed))
    }

    @Test func mergesQueryAndFragmentWithFragmentWinning() throws {
        let url = try #require(URL(string: "fb123://authorize/?state=q&code=c1&a=1#state=f&access_token=EAAB&b=x+y%2B"))
        #expect(
            LoginCallback.parameters(of: url) == [
                "state": "f", "code": "c1", "a": "1", "access_token": "EAAB", "b": "x y+",
            ])
    }

    @Test func dropsFacebookFragmentMarker() throws {
        let url = try #require(URL(string: "https://app.example/cb?code=AQD&state=s1#_=_"))
        #expect(LoginCallback.parameters(of: url) == ["code": "AQD", "state": "s1"])
    }

    @Test func skipsUndecodablePairs() throws {
        let url = try #require(URL(string: "fb1://authorize/#bad=%C3%28&access_token=t"))
        #expect(LoginCallback.parameters(of: url) == ["access_token": "t"])
    }

    @Test func classicTokenRedirect() throws {
        let signed = SignedRequest.make(payload: ["code": "x", "issued_at": 1, "user_id": "1207059"], secret: "s")
        let result = try callback(
            "fb123://authorize/#access_token=EAAB&data_access_expiration_time=1700000000"
                + "&expires_in=5183944&granted_scopes=public_profile%2Cemail&denied_scopes=user_friends"
                + "&graph_domain=facebook&signed_request=\(signed)&state=%7B%22challenge%22%3A%22abc%22%7D")
        #expect(result.outcome == .success)
        #expect(result.accessToken == "EAAB")
        #expect(result.grantedScopes == ["public_profile", "email"])
        #expect(result.deniedScopes == ["user_friends"])
        #expect(result.expiresIn == 5_183_944)
        #expect(result.dataAccessExpirationTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(result.graphDomain == "facebook")
        #expect(result.userID == "1207059")
        #expect(result.state == #"{"challenge":"abc"}"#)
        #expect(result.expiresAt == nil)
    }

    @Test func absoluteExpiryPrefersExpires() {
        #expect(
            LoginCallback(parameters: ["expires": "100", "expires_at": "200"]).expiresAt
                == Date(timeIntervalSince1970: 100))
        #expect(LoginCallback(parameters: ["expires_at": "200"]).expiresAt == Date(timeIntervalSince1970: 200))
        #expect(LoginCallback(parameters: ["expires_at": "0", "expires_in": "x"]).expiresAt == nil)
        #expect(LoginCallback(parameters: ["expires_in": "x"]).expiresIn == nil)
    }

    @Test func userIDPrefersDirectParameter() {
        let signed = SignedRequest.make(payload: ["user_id": 99], secret: "s")
        #expect(LoginCallback(parameters: ["user_id": "5", "signed_request": signed]).userID == "5")
        #expect(LoginCallback(parameters: ["user_id": "", "signed_request": signed]).userID == "99")
        #expect(LoginCallback(parameters: ["signed_request": "junk"]).userID == nil)
    }

    @Test func scopeLists() {
        #expect(LoginCallback(parameters: ["granted_scopes": ""]).grantedScopes == [])
        #expect(
            LoginCallback(parameters: ["granted_scopes": "email,,public_profile"]).grantedScopes == [
                "email", "public_profile",
            ])
        #expect(LoginCallback(parameters: [:]).grantedScopes == nil)
    }

    @Test(
        arguments: [
            (["access_token": "EAAB"], LoginCallback.Outcome.success),
            (["code": "AQD"], .success),
            (["id_token": "h.p.s"], .success),
            (["nonce": "n"], .success),
            (["code": "AQD", "id_token": "h.p.s"], .success),
            (["code": "AQD", "nonce": "n"], .success),
            (["access_token": "EAAB", "code": "c", "id_token": "i", "nonce": "n"], .success),
            (["access_token": "", "state": "s"], .cancelled),
            ([:], .cancelled),
            (["code": "c", "id_token": "i", "nonce": "n"], .cancelled),
            (["code": "", "id_token": ""], .cancelled),
        ] as [([String: String], LoginCallback.Outcome)])
    func successRules(parameters: [String: String], expected: LoginCallback.Outcome) {
        #expect(LoginCallback(parameters: parameters).outcome == expected)
    }

    @Test func webDenialWithoutErrorMessageIsCancelled() throws {
        let result = try callback(
            "https://app.example/cb?error=access_denied&error_code=200"
                + "&error_description=Permissions+error&error_reason=user_denied&state=s#_=_")
        #expect(result.outcome == .cancelled)
        #expect(result.error == "access_denied")
        #expect(result.errorCode == "200")
        #expect(result.errorDescription == "Permissions error")
        #expect(result.errorReason == "user_denied")
    }

    @Test func errorMessageMakesAFailure() throws {
        let result = try callback("fb123://authorize/#error=server_error&error_code=1&error_message=Something+broke")
        #expect(result.outcome == .failed(error: "server_error", code: "1", message: "Something broke"))
        #expect(
            LoginCallback(parameters: ["error_message": "Only a message"]).outcome
                == .failed(error: "Only a message", code: nil, message: "Only a message"))
    }

    @Test func nonceAndTokenNonce() {
        let result = LoginCallback(parameters: ["nonce": "n1", "user_token_nonce": "utn", "id_token": ""])
        #expect(result.nonce == "n1")
        #expect(result.userTokenNonce == "utn")
        #expect(result.outcome == .success)
    }
}
