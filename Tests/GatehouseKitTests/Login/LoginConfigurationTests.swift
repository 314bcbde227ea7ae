import Foundation
import GatehouseKit
import Testing

@Suite struct LoginConfigurationTests {
    @Test func swiftInitHasFacebookDefaults() throws {
        let configuration = try #require(LoginConfiguration())
        #expect(configuration.requestedPermissions.isEmpty)
        #expect(configuration.tracking == .enabled)
        #expect(configuration.authType == .rerequest)
        #expect(configuration.appSwitch == .enabled)
        #expect(configuration.messengerPageId == nil)
        #expect(UUID(uuidString: configuration.nonce) != nil)
        #expect(configuration.codeVerifier.value.count == 96)
    }

    @Test func designatedInitKeepsEveryValue() throws {
        let verifier = try #require(CodeVerifier(string: String(repeating: "a", count: 43)))
        let configuration = try #require(
            LoginConfiguration(
                permissions: ["email", "user_friends"], tracking: .enabled, nonce: "n-1", messengerPageId: "page9",
                authType: .reauthorize, appSwitch: .disabled, codeVerifier: verifier))
        #expect(configuration.requestedPermissions == [.email, .userFriends])
        #expect(configuration.nonce == "n-1")
        #expect(configuration.messengerPageId == "page9")
        #expect(configuration.authType == .reauthorize)
        #expect(configuration.appSwitch == .disabled)
        #expect(configuration.codeVerifier == verifier)
    }

    @Test func swiftInitTakesTypedPermissions() throws {
        let configuration = try #require(
            LoginConfiguration(permissions: [.publicProfile, .custom("user_posts")], tracking: .enabled))
        #expect(configuration.requestedPermissions.map(\.name).sorted() == ["public_profile", "user_posts"])
    }

    @Test(arguments: ["", " ", "abc def", "abc\tdef", "abc\n", "\u{00A0}x"])
    func nonceWithWhitespaceOrEmptyIsRejected(nonce: String) {
        #expect(LoginConfiguration(permissions: [], tracking: .enabled, nonce: nonce) == nil)
    }

    @Test func nonceWithPunctuationIsAccepted() {
        #expect(LoginConfiguration(permissions: [], tracking: .enabled, nonce: "a.b-c_d~e+f/g=") != nil)
    }

    @Test(arguments: ["user_actions.books", "Email", "user2", "", "user-friends", "émail"])
    func permissionNamesOutsideLowercaseAndUnderscoreAreRejected(name: String) {
        #expect(LoginConfiguration(permissions: [name], tracking: .enabled) == nil)
        #expect(LoginConfiguration(permissions: Set([Permission(name)])) == nil)
    }

    @Test func authTypeMustBeNilRerequestOrReauthorize() {
        func make(_ authType: LoginAuthType?) -> LoginConfiguration? {
            LoginConfiguration(
                permissions: ["email"], tracking: .enabled, nonce: "n", messengerPageId: nil, authType: authType,
                appSwitch: .enabled, codeVerifier: CodeVerifier())
        }
        #expect(make(nil)?.authType == nil)
        #expect(make(.rerequest)?.authType == .rerequest)
        #expect(make(.reauthorize)?.authType == .reauthorize)
        #expect(make("reauthenticate") == nil)
        #expect(make("") == nil)
    }

    @Test func limitedTrackingAcceptsOnlyLimitedLoginPermissions() {
        let allowed = [
            "public_profile", "email", "gaming_profile", "gaming_user_picture", "user_age_range", "user_birthday",
            "user_friends", "user_gender", "user_hometown", "user_link", "user_location", "user_messenger_contact",
        ]
        #expect(LoginConfiguration(permissions: allowed, tracking: .limited)?.requestedPermissions.count == 12)
        #expect(LoginConfiguration.limitedLoginPermissions == Set(allowed))
        for refused in ["user_posts", "user_photos", "pages_show_list", "ads_read"] {
            #expect(LoginConfiguration(permissions: ["email", refused], tracking: .limited) == nil)
            #expect(LoginConfiguration(permissions: ["email", refused], tracking: .enabled) != nil)
        }
    }

    @Test func trackingOnlyInit() throws {
        let limited = try #require(LoginConfiguration(tracking: .limited))
        #expect(limited.tracking == .limited)
        #expect(limited.requestedPermissions.isEmpty)
        #expect(limited.authType == .rerequest)
    }

    @Test func typedValuesMatchFacebook() {
        #expect(LoginTracking.enabled.rawValue == 0 && LoginTracking.limited.rawValue == 1)
        #expect(AppSwitch.disabled.rawValue == 0 && AppSwitch.enabled.rawValue == 1)
        #expect(LoginAuthType.rerequest.rawValue == "rerequest")
        #expect(LoginAuthType.reauthorize.rawValue == "reauthorize")
        #expect(LoginAuthType(rawValue: "rerequest") == .rerequest)
    }
}

@Suite struct CodeVerifierTests {
    @Test func freshVerifierIs72RandomBytesInBase64URL() throws {
        let first = CodeVerifier(), second = CodeVerifier()
        #expect(first.value.count == 96)
        #expect(first.value != second.value)
        #expect(!first.value.contains("=") && !first.value.contains("+") && !first.value.contains("/"))
        var base64 = first.value.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let bytes = try #require(Data(base64Encoded: base64))
        #expect(bytes.count == 72)
    }

    @Test func stringInitChecksLengthAndAlphabet() {
        #expect(CodeVerifier(string: String(repeating: "a", count: 42)) == nil)
        #expect(CodeVerifier(string: String(repeating: "a", count: 43))?.value.count == 43)
        #expect(CodeVerifier(string: String(repeating: "Z", count: 128))?.value.count == 128)
        #expect(CodeVerifier(string: String(repeating: "a", count: 129)) == nil)
        #expect(CodeVerifier(string: String(repeating: "-._~", count: 11)) != nil)
        #expect(CodeVerifier(string: String(repeating: "a", count: 42) + "+") == nil)
        #expect(CodeVerifier(string: String(repeating: "a", count: 42) + "=") == nil)
    }

    /// RFC 7636 Appendix B.
    @Test func challengeIsS256OfTheValue() throws {
        let verifier = try #require(CodeVerifier(string: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(verifier.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }
}
