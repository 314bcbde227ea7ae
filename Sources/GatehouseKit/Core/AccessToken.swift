import Foundation

/// A person's access token for this app, with what it may do and when it lapses (Facebook's `AccessToken`).
public final class AccessToken: Codable, Equatable, Sendable, CustomStringConvertible {
    public let tokenString: String
    public let permissions: Set<Permission>
    public let declinedPermissions: Set<Permission>
    public let expiredPermissions: Set<Permission>
    public let appID: String
    public let userID: String
    /// `distantFuture` when the server gave no expiry.
    public let expirationDate: Date
    /// When the token was last refreshed (or created).
    public let refreshDate: Date
    public let dataAccessExpirationDate: Date
    /// How the person logged in (the seeds' `FBAccessTokenData.loginType`); `.none` when unknown.
    public let loginType: LoginType

    /// Facebook's designated initialiser: nil expiry → `distantFuture`, nil refresh → now.
    /// `loginType` is GatehouseKit's addition, defaulted so Facebook's calls compile.
    public init(
        tokenString: String, permissions: [String], declinedPermissions: [String], expiredPermissions: [String],
        appID: String, userID: String, expirationDate: Date?, refreshDate: Date?, dataAccessExpirationDate: Date?,
        loginType: LoginType = .none
    ) {
        self.loginType = loginType
        self.tokenString = tokenString
        self.permissions = Set(permissions.map { Permission($0) })
        self.declinedPermissions = Set(declinedPermissions.map { Permission($0) })
        self.expiredPermissions = Set(expiredPermissions.map { Permission($0) })
        self.appID = appID
        self.userID = userID
        self.expirationDate = expirationDate ?? .distantFuture
        self.refreshDate = refreshDate ?? GatehouseKitEnvironment.current.clock.now()
        self.dataAccessExpirationDate = dataAccessExpirationDate ?? .distantFuture
    }

    /// Whether the token has expired, by the SDK's clock.
    public var isExpired: Bool { GatehouseKitEnvironment.current.clock.now() >= expirationDate }
    /// Whether data access (90 days after the last login) has lapsed.
    public var isDataAccessExpired: Bool { GatehouseKitEnvironment.current.clock.now() >= dataAccessExpirationDate }

    public func hasGranted(_ permission: Permission) -> Bool { permissions.contains(permission) }

    /// The current person's token. Setting it writes the token cache and posts `.AccessTokenDidChange`.
    public static var current: AccessToken? {
        get { GatehouseKitEnvironment.current.currentAccessToken }
        set { GatehouseKitEnvironment.current.setCurrentAccessToken(newValue) }
    }

    /// A current token exists and has not expired.
    public static var isCurrentAccessTokenActive: Bool { current.map { !$0.isExpired } ?? false }

    public static func == (a: AccessToken, b: AccessToken) -> Bool {
        a.tokenString == b.tokenString && a.permissions == b.permissions
            && a.declinedPermissions == b.declinedPermissions
            && a.expiredPermissions == b.expiredPermissions && a.appID == b.appID && a.userID == b.userID
            && a.expirationDate == b.expirationDate && a.refreshDate == b.refreshDate
            && a.dataAccessExpirationDate == b.dataAccessExpirationDate && a.loginType == b.loginType
    }

    /// This token with `loginType` set (everything else unchanged).
    public func with(loginType: LoginType) -> AccessToken {
        AccessToken(
            tokenString: tokenString, permissions: permissions.map(\.name),
            declinedPermissions: declinedPermissions.map(\.name),
            expiredPermissions: expiredPermissions.map(\.name), appID: appID, userID: userID,
            expirationDate: expirationDate,
            refreshDate: refreshDate, dataAccessExpirationDate: dataAccessExpirationDate, loginType: loginType)
    }

    /// Never prints the token itself.
    public var description: String {
        "AccessToken(user: \(userID), app: \(appID), permissions: \(permissions.map(\.name).sorted()), expires: \(expirationDate))"
    }

    // Archive keys match Facebook's (`tokenString`, `permissions`, …).
    enum CodingKeys: String, CodingKey {
        case tokenString, permissions, declinedPermissions, expiredPermissions, appID, userID, expirationDate,
            refreshDate, dataAccessExpirationDate, loginType
    }

    public convenience init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            tokenString: try c.decode(String.self, forKey: .tokenString),
            permissions: try c.decode([String].self, forKey: .permissions),
            declinedPermissions: try c.decode([String].self, forKey: .declinedPermissions),
            expiredPermissions: try c.decode([String].self, forKey: .expiredPermissions),
            appID: try c.decode(String.self, forKey: .appID), userID: try c.decode(String.self, forKey: .userID),
            expirationDate: try c.decode(Date.self, forKey: .expirationDate),
            refreshDate: try c.decode(Date.self, forKey: .refreshDate),
            dataAccessExpirationDate: try c.decode(Date.self, forKey: .dataAccessExpirationDate),
            // Absent in caches written before the field existed.
            loginType: (try? c.decodeIfPresent(LoginType.self, forKey: .loginType)) ?? .none)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tokenString, forKey: .tokenString)
        try c.encode(permissions.map(\.name).sorted(), forKey: .permissions)
        try c.encode(declinedPermissions.map(\.name).sorted(), forKey: .declinedPermissions)
        try c.encode(expiredPermissions.map(\.name).sorted(), forKey: .expiredPermissions)
        try c.encode(appID, forKey: .appID)
        try c.encode(userID, forKey: .userID)
        try c.encode(expirationDate, forKey: .expirationDate)
        try c.encode(refreshDate, forKey: .refreshDate)
        try c.encode(dataAccessExpirationDate, forKey: .dataAccessExpirationDate)
        try c.encode(loginType, forKey: .loginType)
    }
}

/// `.AccessTokenDidChange` userInfo keys, with Facebook's values.
public let AccessTokenChangeNewKey = "FBSDKAccessToken"
public let AccessTokenChangeOldKey = "FBSDKAccessTokenOld"
public let AccessTokenDidChangeUserIDKey = "FBSDKAccessTokenDidChangeUserIDKey"
public let AccessTokenDidExpireKey = "FBSDKAccessTokenDidExpireKey"
/// GatehouseKit's addition: the Graph error that made the SDK drop the current token (code 190 or 102
/// for the person's own token: app removed, password changed, logged out elsewhere).
public let AccessTokenInvalidationErrorKey = "GatehouseAccessTokenInvalidationErrorKey"

extension Notification.Name {
    /// Posted when `AccessToken.current` changes or expires.
    public static let AccessTokenDidChange = Notification.Name(
        "com.facebook.sdk.FBSDKAccessTokenData.FBSDKAccessTokenDidChangeNotification")
}
