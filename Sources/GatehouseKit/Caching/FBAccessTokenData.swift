import Foundation

/// The seeds' (Facebook SDK 3.x) name for the token a token cache stores: today's ``AccessToken``.
public typealias FBAccessTokenData = AccessToken

/// The 3.x token-information dictionary keys (`FBTokenInformation…Key`), with Facebook's values, so a
/// dictionary written by a 3.x app (or read by one) means the same here.
public let FBTokenInformationTokenKey = "com.facebook.sdk:TokenInformationTokenKey"
/// The expiration date (`Date`).
public let FBTokenInformationExpirationDateKey = "com.facebook.sdk:TokenInformationExpirationDateKey"
/// When the token was last refreshed (`Date`).
public let FBTokenInformationRefreshDateKey = "com.facebook.sdk:TokenInformationRefreshDateKey"
/// The person's (app-scoped) id.
public let FBTokenInformationUserFBIDKey = "com.facebook.sdk:TokenInformationUserFBIDKey"
/// 3.x's `FBSessionLoginType` as a number (`LoginType.sessionLoginTypeNumber`).
public let FBTokenInformationLoginTypeLoginKey = "com.facebook.sdk:TokenInformationLoginTypeLoginKey"
/// The granted permissions (`[String]`).
public let FBTokenInformationPermissionsKey = "com.facebook.sdk:TokenInformationPermissionsKey"
/// The declined permissions (`[String]`, SDK 3.14 and later).
public let FBTokenInformationDeclinedPermissionsKey = "com.facebook.sdk:TokenInformationDeclinedPermissionsKey"
/// The app id.
public let FBTokenInformationAppIDKey = "com.facebook.sdk:TokenInformationAppIDKey"
/// When the permissions were last read from the server (`Date`); written as the refresh date.
public let FBTokenInformationPermissionsRefreshDateKey = "com.facebook.sdk:TokenInformationPermissionsRefreshDateKey"
/// GatehouseKit's addition: when data access lapses (`Date`); 3.x had no such date, and a dictionary without
/// it gives a token whose data access does not lapse.
public let FBTokenInformationDataAccessExpirationDateKey =
    "com.facebook.sdk:TokenInformationDataAccessExpirationDateKey"

extension AccessToken {
    /// The token as 3.x's `[FBAccessTokenData dictionary]` built it: Facebook's keys, dates as `Date`,
    /// permissions as `[String]`, the login type as a number. Every value is a property-list value, so the
    /// dictionary can be written to a `.plist` file as the seeds' `MyTokenCachingStrategy` does.
    public func dictionary() -> [String: Any] {
        var out: [String: Any] = [
            FBTokenInformationTokenKey: tokenString,
            FBTokenInformationExpirationDateKey: expirationDate,
            FBTokenInformationRefreshDateKey: refreshDate,
            FBTokenInformationPermissionsRefreshDateKey: refreshDate,
            FBTokenInformationPermissionsKey: permissions.map(\.name).sorted(),
            FBTokenInformationDeclinedPermissionsKey: declinedPermissions.map(\.name).sorted(),
            FBTokenInformationLoginTypeLoginKey: NSNumber(value: loginType.sessionLoginTypeNumber),
            FBTokenInformationAppIDKey: appID,
            FBTokenInformationUserFBIDKey: userID,
        ]
        if dataAccessExpirationDate != .distantFuture {
            out[FBTokenInformationDataAccessExpirationDateKey] = dataAccessExpirationDate
        }
        return out
    }

    /// 3.x's `+[FBAccessTokenData createTokenFromDictionary:]`: nil when the dictionary has no token (an
    /// emptied cache, as the seeds' `clearToken` leaves it). A missing app id is the current settings' app id.
    public static func createTokenFromDictionary(_ dictionary: [String: Any]) -> AccessToken? {
        guard let token = dictionary[FBTokenInformationTokenKey] as? String, !token.isEmpty else { return nil }
        let loginNumber =
            (dictionary[FBTokenInformationLoginTypeLoginKey] as? NSNumber)?.intValue
            ?? dictionary[FBTokenInformationLoginTypeLoginKey] as? Int ?? 0
        return AccessToken(
            tokenString: token,
            permissions: dictionary[FBTokenInformationPermissionsKey] as? [String] ?? [],
            declinedPermissions: dictionary[FBTokenInformationDeclinedPermissionsKey] as? [String] ?? [],
            expiredPermissions: [],
            appID: dictionary[FBTokenInformationAppIDKey] as? String ?? GatehouseKitEnvironment.current.settings.appID
                ?? "",
            userID: dictionary[FBTokenInformationUserFBIDKey] as? String ?? "",
            expirationDate: dictionary[FBTokenInformationExpirationDateKey] as? Date,
            refreshDate: dictionary[FBTokenInformationRefreshDateKey] as? Date,
            dataAccessExpirationDate: dictionary[FBTokenInformationDataAccessExpirationDateKey] as? Date,
            loginType: LoginType(sessionLoginTypeNumber: loginNumber))
    }

    /// `createTokenFromDictionary:` as Swift imports Objective-C names.
    public static func createToken(from dictionary: [String: Any]) -> AccessToken? {
        createTokenFromDictionary(dictionary)
    }
}

extension LoginType {
    /// 3.x's `FBSessionLoginType` numbering: none 0, system account 1, Facebook app 2, Safari 3, web view 4,
    /// test user 5. Device login had no 3.x value; it is written as 0 (none).
    public var sessionLoginTypeNumber: Int {
        switch self {
        case .none, .device: 0
        case .systemAccount: 1
        case .facebookApplication: 2
        case .facebookViaSafari: 3
        case .webView: 4
        case .testUser: 5
        }
    }

    /// The login type for a 3.x `FBSessionLoginType` number; unknown numbers are `.none`.
    public init(sessionLoginTypeNumber: Int) {
        switch sessionLoginTypeNumber {
        case 1: self = .systemAccount
        case 2: self = .facebookApplication
        case 3: self = .facebookViaSafari
        case 4: self = .webView
        case 5: self = .testUser
        default: self = .none
        }
    }
}
