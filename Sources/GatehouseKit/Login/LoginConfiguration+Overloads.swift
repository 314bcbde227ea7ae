import Foundation

/// The rest of Facebook's `LoginConfiguration` initialisers (LoginConfiguration.swift in FBSDKLoginKit),
/// with its labels and its defaults for what each leaves out: a random nonce, no Messenger Page,
/// `.rerequest`, `.enabled` and a new PKCE verifier. All fail on the designated initialiser's invalid input.
extension LoginConfiguration {
    public convenience init?(permissions: [String], tracking: LoginTracking, nonce: String, messengerPageId: String?) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: nonce, messengerPageId: messengerPageId,
            authType: .rerequest, appSwitch: .enabled, codeVerifier: CodeVerifier())
    }

    public convenience init?(
        permissions: [String], tracking: LoginTracking, nonce: String, messengerPageId: String?, appSwitch: AppSwitch
    ) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: nonce, messengerPageId: messengerPageId,
            authType: .rerequest, appSwitch: appSwitch, codeVerifier: CodeVerifier())
    }

    public convenience init?(
        permissions: [String], tracking: LoginTracking, nonce: String, messengerPageId: String?,
        authType: LoginAuthType?
    ) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: nonce, messengerPageId: messengerPageId,
            authType: authType, appSwitch: .enabled, codeVerifier: CodeVerifier())
    }

    public convenience init?(
        permissions: [String], tracking: LoginTracking, nonce: String, messengerPageId: String?,
        authType: LoginAuthType?, appSwitch: AppSwitch
    ) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: nonce, messengerPageId: messengerPageId,
            authType: authType, appSwitch: appSwitch, codeVerifier: CodeVerifier())
    }

    public convenience init?(permissions: [String], tracking: LoginTracking, nonce: String) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: nonce, messengerPageId: nil, authType: .rerequest,
            appSwitch: .enabled, codeVerifier: CodeVerifier())
    }

    public convenience init?(permissions: [String], tracking: LoginTracking, nonce: String, appSwitch: AppSwitch) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: nonce, messengerPageId: nil, authType: .rerequest,
            appSwitch: appSwitch, codeVerifier: CodeVerifier())
    }

    public convenience init?(permissions: [String], tracking: LoginTracking, messengerPageId: String?) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: UUID().uuidString, messengerPageId: messengerPageId,
            authType: .rerequest, appSwitch: .enabled, codeVerifier: CodeVerifier())
    }

    public convenience init?(
        permissions: [String], tracking: LoginTracking, messengerPageId: String?, appSwitch: AppSwitch
    ) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: UUID().uuidString, messengerPageId: messengerPageId,
            authType: .rerequest, appSwitch: appSwitch, codeVerifier: CodeVerifier())
    }

    public convenience init?(
        permissions: [String], tracking: LoginTracking, messengerPageId: String?, authType: LoginAuthType?
    ) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: UUID().uuidString, messengerPageId: messengerPageId,
            authType: authType, appSwitch: .enabled, codeVerifier: CodeVerifier())
    }

    public convenience init?(
        permissions: [String], tracking: LoginTracking, messengerPageId: String?, authType: LoginAuthType?,
        appSwitch: AppSwitch
    ) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: UUID().uuidString, messengerPageId: messengerPageId,
            authType: authType, appSwitch: appSwitch, codeVerifier: CodeVerifier())
    }

    public convenience init?(permissions: [String], tracking: LoginTracking, appSwitch: AppSwitch) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: UUID().uuidString, messengerPageId: nil,
            authType: .rerequest, appSwitch: appSwitch, codeVerifier: CodeVerifier())
    }

    public convenience init?(tracking: LoginTracking, appSwitch: AppSwitch) {
        self.init(permissions: [String](), tracking: tracking, appSwitch: appSwitch)
    }
}
