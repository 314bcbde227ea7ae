import Foundation
import GatehouseProtocol

/// Whether a login may give the app a Graph API access token (Facebook's `LoginTracking`).
public enum LoginTracking: UInt, Sendable {
    /// Classic login: an access token (and an id_token when the server sends one).
    case enabled
    /// Limited Login: an id_token only; `AccessToken.current` stays nil.
    case limited
}

/// Whether the SDK may switch to a native Facebook app for login (Facebook's `AppSwitch`).
///
/// Gatehouse has no native app, so this is carried for source compatibility and never changes the flow.
public enum AppSwitch: UInt, Sendable {
    case disabled
    case enabled
}

/// The dialog's `auth_type` (Facebook's typed string `LoginAuthType`).
public struct LoginAuthType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The wire value of `auth_type`.
    public let rawValue: String

    /// Any value; `LoginConfiguration` accepts only `.rerequest` and `.reauthorize`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `"rerequest"` reads as `.rerequest`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Ask again for permissions the person declined before.
    public static let rerequest = LoginAuthType(rawValue: "rerequest")
    /// Renew data access after it lapsed (90 days without use).
    public static let reauthorize = LoginAuthType(rawValue: "reauthorize")
}

/// What one login asks for (Facebook's `LoginConfiguration`). Every initialiser fails on invalid input.
public final class LoginConfiguration: Sendable {
    /// Copied into the id_token; the SDK checks it there.
    public let nonce: String
    /// Classic or Limited Login.
    public let tracking: LoginTracking
    /// Carried for compatibility; Gatehouse always uses the browser.
    public let appSwitch: AppSwitch
    /// The permissions to ask for; the dialog adds `openid`.
    public let requestedPermissions: Set<Permission>
    /// The Page to opt in to Messenger contact, sent as `messenger_page_id`.
    public let messengerPageId: String?
    /// `auth_type`, or nil to omit it.
    public let authType: LoginAuthType?
    /// The PKCE verifier whose challenge the dialog receives.
    public let codeVerifier: CodeVerifier

    /// The permissions a Limited Login may ask for, per Facebook's Limited Login documentation.
    ///
    /// Facebook's SDK does not check this (the server rejects the dialog instead); Gatehouse checks it
    /// up front so a bad configuration fails where it is written. The list is the server's catalogue
    /// (`allowedInLimitedLogin`), without `openid`, which the SDK adds itself rather than taking as a permission.
    public static let limitedLoginPermissions: Set<String> =
        Set(GatehouseProtocol.Permission.limitedLoginNames).subtracting([GatehouseProtocol.Permission.openid])

    /// The designated initialiser (ObjC `initWithPermissions:tracking:nonce:messengerPageId:authType:appSwitch:codeVerifier:`).
    ///
    /// Fails when the nonce is empty or holds whitespace, a permission is not made of `a-z` and `_`,
    /// `authType` is neither nil, `.rerequest` nor `.reauthorize`, or `.limited` tracking asks for a
    /// permission Limited Login does not offer.
    public init?(
        permissions: [String], tracking: LoginTracking, nonce: String, messengerPageId: String?,
        authType: LoginAuthType?, appSwitch: AppSwitch, codeVerifier: CodeVerifier
    ) {
        guard Self.isValidNonce(nonce),
            permissions.allSatisfy(Self.isValidPermissionName),
            authType == nil || authType == .rerequest || authType == .reauthorize
        else { return nil }
        if tracking == .limited, !permissions.allSatisfy(Self.limitedLoginPermissions.contains) { return nil }
        self.nonce = nonce
        self.tracking = tracking
        self.appSwitch = appSwitch
        self.requestedPermissions = Set(permissions.map { Permission($0) })
        self.messengerPageId = messengerPageId
        self.authType = authType
        self.codeVerifier = codeVerifier
    }

    /// The Swift initialiser, with Facebook's defaults.
    public convenience init?(
        permissions: Set<Permission> = [], tracking: LoginTracking = .enabled, nonce: String = UUID().uuidString,
        messengerPageId: String? = nil, authType: LoginAuthType? = .rerequest, appSwitch: AppSwitch = .enabled,
        codeVerifier: CodeVerifier = CodeVerifier()
    ) {
        self.init(
            permissions: permissions.map(\.name).sorted(), tracking: tracking, nonce: nonce,
            messengerPageId: messengerPageId, authType: authType, appSwitch: appSwitch, codeVerifier: codeVerifier)
    }

    /// ObjC `initWithPermissions:tracking:`, the configuration `logIn(permissions:from:handler:)` uses.
    public convenience init?(permissions: [String], tracking: LoginTracking) {
        self.init(
            permissions: permissions, tracking: tracking, nonce: UUID().uuidString, messengerPageId: nil,
            authType: .rerequest, appSwitch: .enabled, codeVerifier: CodeVerifier())
    }

    /// ObjC `initWithTracking:`: no permissions beyond the defaults.
    public convenience init?(tracking: LoginTracking) {
        self.init(permissions: [String](), tracking: tracking)
    }

    /// Facebook's `NonceValidator`: non-empty and no whitespace or newlines.
    static func isValidNonce(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.unicodeScalars.allSatisfy { !CharacterSet.whitespacesAndNewlines.contains($0) }
    }

    /// Facebook's `FBPermission` rule: non-empty, only `a-z` and `_` (so `user_actions.books` fails).
    static func isValidPermissionName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") }
    }
}
