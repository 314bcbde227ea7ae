import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import Testing

@Suite struct LoginDialogURLTests {
    static let verifier = CodeVerifier(string: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")!
    static let state = LoginDialogState(challenge: "ab/cd+ef=", loggerID: "6F1A6E1B-0000-4000-8000-000000000001")
    static let builder = LoginDialogURLBuilder(
        dialogBaseURL: URL(string: "http://127.0.0.1:8080/")!, graphAPIVersion: "v27.0", appID: "1234567890")

    static func request(
        _ configuration: LoginConfiguration, audience: DefaultAudience = .friends, userTokenNonce: String? = nil
    ) -> LoginDialogURLBuilder.Request {
        .init(
            configuration: configuration, redirectURI: "fb1234567890://authorize/", defaultAudience: audience,
            state: state,
            now: Date(timeIntervalSince1970: 1_718_000_000.123), uptime: 4321.5, userTokenNonce: userTokenNonce)
    }

    static func enabled(authType: LoginAuthType? = .rerequest, pageID: String? = nil) -> LoginConfiguration {
        LoginConfiguration(
            permissions: ["user_friends", "email"], tracking: .enabled, nonce: "nonce-1", messengerPageId: pageID,
            authType: authType, appSwitch: .enabled, codeVerifier: verifier)!
    }

    @Test func enabledLoginSendsEveryFacebookParameter() {
        let url = Self.builder.url(for: Self.request(Self.enabled()))
        #expect(url.absoluteString.hasPrefix("http://127.0.0.1:8080/v27.0/dialog/oauth?"))
        let params = LoginTest.query(url)
        #expect(
            params == [
                "auth_type": "rerequest",
                "cbt": "1718000000123.0",
                "client_id": "1234567890",
                "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                "code_challenge_method": "S256",
                "default_audience": "friends",
                "display": "touch",
                "e2e": "{\"init\":4321.5}",
                "fbapp_pres": "0",
                "ies": "0",
                "nonce": "nonce-1",
                "redirect_uri": "fb1234567890://authorize/",
                "response_type": "id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce",
                "return_scopes": "true",
                "scope": "email,openid,user_friends",
                "sdk": "ios",
                "sdk_version": "18.1.0",
                "state":
                    "{\"challenge\":\"ab%2Fcd%2Bef%3D\",\"0_auth_logger_id\":\"6F1A6E1B-0000-4000-8000-000000000001\",\"3_method\":\"sfvc_auth\",\"com.facebook.sdk_client_state\":true}",
            ])
    }

    @Test func keysAreSortedAndValuesPercentEscaped() {
        let url = Self.builder.url(for: Self.request(Self.enabled()))
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)!.percentEncodedQuery!
        let keys = query.split(separator: "&").map { String($0.split(separator: "=")[0]) }
        #expect(keys == keys.sorted())
        #expect(query.contains("redirect_uri=fb1234567890%3A%2F%2Fauthorize%2F"))
        #expect(query.contains("scope=email%2Copenid%2Cuser_friends"))
        for raw in [":", "!", "*", "(", ")", ";", "@", "/", "?", "+", "$", ",", "'", "\""] {
            #expect(
                !query.split(separator: "&").contains { $0.split(separator: "=", maxSplits: 1).last!.contains(raw) })
        }
    }

    @Test func limitedLoginAsksForIDTokenOnlyWithoutPKCE() throws {
        let configuration = try #require(
            LoginConfiguration(
                permissions: ["email"], tracking: .limited, nonce: "nonce-2", messengerPageId: nil, authType: nil,
                appSwitch: .enabled, codeVerifier: Self.verifier))
        let params = LoginTest.query(Self.builder.url(for: Self.request(configuration)))
        #expect(params["response_type"] == "id_token,graph_domain,user_token_nonce")
        #expect(params["tp"] == "ios_14_do_not_track")
        #expect(params["code_challenge"] == nil)
        #expect(params["code_challenge_method"] == nil)
        #expect(params["auth_type"] == nil)
        #expect(params["nonce"] == "nonce-2")
        #expect(params["scope"] == "email,openid")
    }

    @Test func enabledLoginHasNoTrackingParameter() {
        #expect(LoginTest.query(Self.builder.url(for: Self.request(Self.enabled())))["tp"] == nil)
    }

    @Test func optionalParametersAppearOnlyWhenSet() {
        var builder = Self.builder
        builder.urlSchemeSuffix = "lite"
        let params = LoginTest.query(
            builder.url(
                for: Self.request(
                    Self.enabled(authType: .reauthorize, pageID: "page-7"), audience: .onlyMe, userTokenNonce: "utn-1"))
        )
        #expect(params["local_client_id"] == "lite")
        #expect(params["messenger_page_id"] == "page-7")
        #expect(params["user_token_nonce"] == "utn-1")
        #expect(params["auth_type"] == "reauthorize")
        #expect(params["default_audience"] == "only_me")
        let plain = LoginTest.query(Self.builder.url(for: Self.request(Self.enabled(authType: nil))))
        #expect(
            plain["local_client_id"] == nil && plain["messenger_page_id"] == nil && plain["user_token_nonce"] == nil)
        #expect(plain["auth_type"] == nil)
    }

    @Test func audienceNames() {
        for (audience, name) in [(DefaultAudience.friends, "friends"), (.onlyMe, "only_me"), (.everyone, "everyone")] {
            #expect(
                LoginTest.query(Self.builder.url(for: Self.request(Self.enabled(), audience: audience)))[
                    "default_audience"] == name)
        }
    }

    @Test func scopeAlwaysIncludesOpenIDOnce() throws {
        let none = try #require(LoginConfiguration(permissions: [String](), tracking: .enabled))
        #expect(LoginTest.query(Self.builder.url(for: Self.request(none)))["scope"] == "openid")
        let withOpenID = try #require(LoginConfiguration(permissions: ["openid", "email"], tracking: .enabled))
        #expect(LoginTest.query(Self.builder.url(for: Self.request(withOpenID)))["scope"] == "email,openid")
    }

    @Test func settingsProvideBaseVersionAppAndSuffix() throws {
        let settings = LoginTest.settings(suffix: "pro")
        settings.dialogURL = URL(string: "http://dialog.test:81/base//")!
        settings.graphAPIVersion = "v17.0"
        let builder = try #require(LoginDialogURLBuilder(settings: settings))
        let url = builder.url(for: Self.request(Self.enabled()))
        #expect(url.absoluteString.hasPrefix("http://dialog.test:81/base/v17.0/dialog/oauth?"))
        #expect(LoginTest.query(url)["local_client_id"] == "pro")
        #expect(LoginDialogURLBuilder(settings: LoginTest.settings(appID: nil)) == nil)
        #expect(LoginDialogURLBuilder(settings: LoginTest.settings(appID: "")) == nil)
    }

    @Test func stateChallengeRoundTrips() {
        for _ in 0..<20 {
            let state = LoginDialogState.random()
            #expect(LoginDialogState.challenge(inParameter: state.parameterValue) == state.challenge)
            #expect(UUID(uuidString: state.loggerID) != nil)
            #expect(state.method == "sfvc_auth")
        }
        #expect(LoginDialogState.challenge(inParameter: "not json") == nil)
        #expect(LoginDialogState.challenge(inParameter: "{\"other\":1}") == nil)
        #expect(LoginDialogState.challenge(inParameter: nil) == nil)
    }

    @Test func challengeIsBase64OfTwentyBytesWithPlusAsEquals() {
        let state = LoginDialogState.random()
        #expect(state.challenge.count == 28)
        #expect(!state.challenge.contains("+"))
        #expect(state.challenge.hasSuffix("="))
    }
}
