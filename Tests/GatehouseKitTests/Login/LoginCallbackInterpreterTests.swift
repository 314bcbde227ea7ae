import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing

/// Every callback rule of the reference's §3, on constructed URLs.
@Suite struct LoginCallbackInterpreterTests {
    static let state = LoginDialogState(challenge: "c/h+a=", loggerID: "L")
    static let expectations = LoginExpectations(
        challenge: state.challenge, nonce: "nonce-1", codeVerifier: CodeVerifier(), redirectURI: "fb1://authorize/",
        tracking: .enabled, requestedPermissions: ["email", "user_friends"])
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func interpret(_ url: String, expecting: LoginExpectations = expectations) -> LoginCallbackStep {
        LoginCallbackInterpreter.interpret(LoginCallback(url: URL(string: url)!)!, expecting: expecting, now: now)
    }

    static var stateParam: String { "state=" + FormEncoding.escape(state.parameterValue) }

    @Test func tokenInFragmentCompletesWithEveryValue() throws {
        let signed = LoginTest.signedRequest(userID: "4242")
        let step = Self.interpret(
            "fb1://authorize/#access_token=EAAtok&expires_in=3600&data_access_expiration_time=1757776000"
                + "&signed_request=\(signed)&graph_domain=facebook&granted_scopes=public_profile,email"
                + "&denied_scopes=user_friends&user_token_nonce=utn&\(Self.stateParam)")
        guard case .complete(let parameters) = step else { Issue.record("got \(step)"); return }
        #expect(
            parameters
                == LoginTokenParameters(
                    accessToken: "EAAtok", userID: "4242", expirationDate: Self.now.addingTimeInterval(3600),
                    dataAccessExpirationDate: Date(timeIntervalSince1970: 1_757_776_000),
                    grantedPermissions: ["public_profile", "email"],
                    declinedPermissions: ["user_friends"], graphDomain: "facebook", userTokenNonce: "utn"))
    }

    @Test func fragmentWinsOverQuery() throws {
        let step = Self.interpret(
            "fb1://authorize/?access_token=fromQuery&granted_scopes=email&\(Self.stateParam)#access_token=fromFragment")
        guard case .complete(let parameters) = step else { Issue.record("got \(step)"); return }
        #expect(parameters.accessToken == "fromFragment")
        #expect(parameters.grantedPermissions == ["email"])
    }

    @Test func absoluteExpiryWinsOverRelative() throws {
        let step = Self.interpret(
            "fb1://authorize/#access_token=t&expires_at=1760000000&expires_in=60&\(Self.stateParam)")
        guard case .complete(let parameters) = step else { Issue.record("got \(step)"); return }
        #expect(parameters.expirationDate == Date(timeIntervalSince1970: 1_760_000_000))
        #expect(parameters.dataAccessExpirationDate == nil)
    }

    @Test func accessDeniedWithoutMessageIsCancelledWhateverTheState() {
        for url in [
            "fb1://authorize/#error=access_denied&error_code=200&error_description=Permissions+error&error_reason=user_denied&\(Self.stateParam)",
            "fb1://authorize/?error=access_denied&error_reason=user_denied&state=forged",
            "fb1://authorize/",
        ] {
            guard case .cancelled = Self.interpret(url) else { Issue.record("not cancelled: \(url)"); continue }
        }
    }

    @Test func errorMessageMakesAGraphErrorWithFacebooksDeveloperMessageOrder() throws {
        let step = Self.interpret(
            "fb1://authorize/#error=server_error&error_code=190&error_message=Bad+things&error_reason=why&state=forged")
        guard case .failed(let error) = step else { Issue.record("got \(step)"); return }
        let graph = try #require(error as? GraphAPIError)
        #expect(graph.code == 190)
        #expect(graph.message == "server_error")
        #expect(graph.coreCode == .graphAPI)
        #expect(graph.body["error_message"]?.stringValue == "Bad things")
        #expect(graph.body["error_reason"]?.stringValue == "why")

        let messageOnly = Self.interpret("fb1://authorize/#error_message=Only+a+message")
        guard case .failed(let second) = messageOnly else { Issue.record("got \(messageOnly)"); return }
        #expect((second as? GraphAPIError)?.message == "Only a message")
        #expect((second as? GraphAPIError)?.code == 0)
    }

    @Test func wrongOrMissingChallengeIsError308() {
        let forged = LoginDialogState(challenge: "other", loggerID: "L").parameterValue
        for url in [
            "fb1://authorize/#access_token=t&state=" + FormEncoding.escape(forged),
            "fb1://authorize/#access_token=t",
            "fb1://authorize/#access_token=t&state=not-json",
            "fb1://authorize/?code=abc#_=_",
        ] {
            guard case .failed(let error) = Self.interpret(url) else { Issue.record("not failed: \(url)"); continue }
            #expect(error as? LoginError == LoginError(.badChallengeString))
            #expect((error as? LoginError)?.code.rawValue == 308)
        }
    }

    @Test func codeLeadsToTheExchange() {
        let step = Self.interpret("fb1://authorize/?code=AQcode&granted_scopes=email&\(Self.stateParam)#_=_")
        guard case .exchangeCode(let code, let parameters) = step else { Issue.record("got \(step)"); return }
        #expect(code == "AQcode")
        #expect(parameters.grantedPermissions == ["email"])
        #expect(parameters.accessToken == nil)
    }

    @Test func codeWithIDTokenIsUnknownError() {
        let step = Self.interpret("fb1://authorize/#code=c&id_token=j.w.t&\(Self.stateParam)")
        guard case .failed(let error) = step else { Issue.record("got \(step)"); return }
        #expect((error as? LoginError)?.code == .unknown)
    }

    @Test func nonceWithoutTokenLeadsToTheNonceExchange() {
        let step = Self.interpret("fb1://authorize/#nonce=n0nce&granted_scopes=email&\(Self.stateParam)")
        guard case .exchangeNonce(let nonce, _) = step else { Issue.record("got \(step)"); return }
        #expect(nonce == "n0nce")
    }

    @Test func idTokenAloneCompletes() {
        let step = Self.interpret(
            "fb1://authorize/#id_token=h.p.s&graph_domain=facebook&granted_scopes=email&\(Self.stateParam)")
        guard case .complete(let parameters) = step else { Issue.record("got \(step)"); return }
        #expect(parameters.idToken == "h.p.s")
        #expect(parameters.accessToken == nil)
    }

    @Test func emptyValuesDoNotCount() {
        guard case .cancelled = Self.interpret("fb1://authorize/#access_token=&code=&\(Self.stateParam)") else {
            Issue.record("empty token and code must read as cancelled"); return
        }
    }
}
