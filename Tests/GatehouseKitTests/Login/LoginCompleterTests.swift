import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing

/// The network half of finishing a login, against a fake Graph client.
@Suite struct LoginCompleterTests {
    static let state = LoginDialogState(challenge: "chal", loggerID: "L")
    static let verifier = CodeVerifier(string: String(repeating: "v", count: 50))!
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func expectations(tracking: LoginTracking = .enabled) -> LoginExpectations {
        LoginExpectations(
            challenge: state.challenge, nonce: "nonce-1", codeVerifier: verifier, redirectURI: "fb1://authorize/",
            tracking: tracking, requestedPermissions: ["email"])
    }

    static func url(_ parameters: String, query: Bool = false) -> URL {
        let state = "state=" + FormEncoding.escape(Self.state.parameterValue)
        return URL(string: "fb1://authorize/" + (query ? "?" : "#") + parameters + "&" + state)!
    }

    static func complete(
        _ graph: FakeLoginGraph, _ url: URL?, tracking: LoginTracking = .enabled, previous: AccessToken? = nil
    ) async -> LoginCompletion {
        await LoginCompleter(graph: graph, appID: "1", clientToken: "ct").complete(
            callbackURL: url, expectations: expectations(tracking: tracking), previousToken: previous, now: now)
    }

    @Test func noCallbackIsCancelled() async {
        let completion = await Self.complete(FakeLoginGraph([:]), nil)
        #expect(completion.result?.isCancelled == true)
        #expect(completion.error == nil)
    }

    @Test func codeIsExchangedWithTheVerifierAndClientToken() async throws {
        let graph = FakeLoginGraph([
            "oauth/access_token": (200, ["access_token": "EAAcode", "token_type": "bearer", "expires_in": 5184000])
        ])
        let completion = await Self.complete(
            graph,
            Self.url(
                "code=AQc&granted_scopes=public_profile,email&signed_request=\(LoginTest.signedRequest(userID: "9"))",
                query: true))
        #expect(
            graph.calls == [
                FakeLoginGraph.Call(
                    path: "oauth/access_token",
                    parameters: [
                        "client_id": "1", "redirect_uri": "fb1://authorize/", "code_verifier": Self.verifier.value,
                        "code": "AQc",
                    ],
                    tokenString: "1|ct")
            ])
        let token = try #require(completion.result?.token)
        #expect(token.tokenString == "EAAcode")
        #expect(token.userID == "9")
        #expect(token.expirationDate == Self.now.addingTimeInterval(5_184_000))
        #expect(token.dataAccessExpirationDate == .distantFuture)
        #expect(completion.result?.grantedPermissions == ["public_profile", "email"])
    }

    @Test func refusedCodeIsCoreError2() async {
        let graph = FakeLoginGraph([
            "oauth/access_token": (
                400, ["error": ["message": "Invalid code verifier", "type": "OAuthException", "code": 100]]
            )
        ])
        let completion = await Self.complete(graph, Self.url("code=AQc&granted_scopes=email", query: true))
        #expect(completion.result == nil)
        #expect((completion.error as? CoreError)?.code == .invalidArgument)
    }

    @Test func nonceIsExchangedWithFacebooksGrant() async throws {
        let graph = FakeLoginGraph([
            "oauth/access_token": (200, ["access_token": "EAAnonce", "expires_at": 1_760_000_000]),
            "me": (200, ["id": "31"]),
        ])
        let completion = await Self.complete(graph, Self.url("nonce=n1&granted_scopes=email"))
        #expect(
            graph.calls.first
                == FakeLoginGraph.Call(
                    path: "oauth/access_token",
                    parameters: [
                        "grant_type": "fb_exchange_nonce", "fb_exchange_nonce": "n1", "client_id": "1", "fields": "",
                        "code_verifier": Self.verifier.value,
                    ],
                    tokenString: "1|ct"))
        #expect(completion.result?.token?.expirationDate == Date(timeIntervalSince1970: 1_760_000_000))
        #expect(completion.result?.token?.userID == "31")
    }

    @Test func missingUserIDIsAskedFromMe() async throws {
        let graph = FakeLoginGraph(["me": (200, ["id": "55", "name": "Ann"])])
        let completion = await Self.complete(graph, Self.url("access_token=EAAx&granted_scopes=email"))
        #expect(graph.calls == [FakeLoginGraph.Call(path: "me", parameters: ["fields": "id"], tokenString: "EAAx")])
        #expect(completion.result?.token?.userID == "55")
    }

    @Test func knownUserIDNeedsNoCallWithoutAPreviousToken() async {
        let graph = FakeLoginGraph([:])
        let completion = await Self.complete(
            graph,
            Self.url("access_token=EAAx&granted_scopes=email&signed_request=\(LoginTest.signedRequest(userID: "8"))"))
        #expect(graph.calls.isEmpty)
        #expect(completion.result?.token?.userID == "8")
    }

    @Test func sameUserAsThePreviousTokenIsAccepted() async {
        let graph = FakeLoginGraph(["me": (200, ["id": "111"])])
        let completion = await Self.complete(
            graph,
            Self.url(
                "access_token=EAAnew&granted_scopes=email&signed_request=\(LoginTest.signedRequest(userID: "111"))"),
            previous: LoginTest.token(userID: "111"))
        #expect(graph.calls == [FakeLoginGraph.Call(path: "me", parameters: ["fields": ""], tokenString: "EAAnew")])
        #expect(completion.result?.token?.tokenString == "EAAnew")
        #expect(completion.result?.grantedPermissions == ["email"])
    }

    @Test func anotherUserThanThePreviousTokenIsError304() async {
        let graph = FakeLoginGraph(["me": (200, ["id": "222"])])
        let completion = await Self.complete(
            graph, Self.url("access_token=EAAnew&granted_scopes=email"), previous: LoginTest.token(userID: "111"))
        #expect(completion.result == nil)
        #expect((completion.error as? LoginError)?.code == .userMismatch)
        #expect((completion.error as? LoginError)?.code.rawValue == 304)
    }

    @Test func meGraphErrorFailsTheLogin() async {
        let graph = FakeLoginGraph(["me": (400, ["error": ["message": "Invalid OAuth access token", "code": 190]])])
        let completion = await Self.complete(graph, Self.url("access_token=EAAx&granted_scopes=email"))
        #expect((completion.error as? GraphAPIError)?.code == 190)
    }

    @Test func limitedLoginMakesNoGraphCalls() async {
        let graph = FakeLoginGraph([:])
        let completion = await Self.complete(
            graph, Self.url("id_token=h.p.s&access_token=ignored&granted_scopes=email"), tracking: .limited,
            previous: LoginTest.token(userID: "1"))
        #expect(graph.calls.isEmpty)
        #expect(completion.result?.token == nil)
        #expect(completion.result?.authenticationToken?.nonce == "nonce-1")
    }

    @Test func userTokenNonceIsPassedOn() async {
        let completion = await Self.complete(
            FakeLoginGraph([:]),
            Self.url("access_token=EAAx&granted_scopes=email&user_id=5&user_token_nonce=utn-2"))
        #expect(completion.userTokenNonce == "utn-2")
    }
}
