import Foundation
import GatehouseProtocol

/// Who is calling, once a presented access token has been checked.
enum Caller: Sendable {
    /// A person's token for one app.
    case user(UserCaller)
    /// An app token (`APPID|…` minted, or the literal `APPID|APPSECRET`).
    case app(AppRecord)
    /// The mobile SDKs' `APPID|CLIENT_TOKEN`: identifies the app, grants no app-level rights.
    case client(AppRecord)

    var app: AppRecord {
        switch self {
        case .user(let u): u.app
        case .app(let a), .client(let a): a
        }
    }
}

/// A valid user token with everything it stands for.
struct UserCaller: Sendable {
    var tokenString: String
    var token: TokenRecord
    var app: AppRecord
    var user: UserRecord
    var grant: GrantRecord
    /// The user's id as this app sees it.
    var scopedID: String
    var now: Date

    var dataAccessExpiresAt: Date { grant.lastLoginAt.addingTimeInterval(Lifetimes.dataAccess) }
    var isDataAccessExpired: Bool { now >= dataAccessExpiresAt }

    /// Whether the app may read data behind `permission` right now.
    func has(_ permission: String) -> Bool {
        if permission == Permission.publicProfile { return true }
        return !isDataAccessExpired && grant.granted.contains(permission)
    }
}
