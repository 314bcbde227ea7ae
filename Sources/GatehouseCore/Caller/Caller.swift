import Foundation
import GatehouseProtocol

/// Who is calling, once a presented access token has been checked.
package enum Caller: Sendable {
    /// A person's token for one app.
    case user(UserCaller)
    /// An app token (`APPID|…` minted, or the literal `APPID|APPSECRET`).
    case app(AppRecord)
    /// The mobile SDKs' `APPID|CLIENT_TOKEN`: identifies the app, grants no app-level rights.
    case client(AppRecord)

    package var app: AppRecord {
        switch self {
        case .user(let u): u.app
        case .app(let a), .client(let a): a
        }
    }
}

/// A valid user token with everything it stands for.
package struct UserCaller: Sendable {
    package var tokenString: String
    package var token: TokenRecord
    package var app: AppRecord
    package var user: UserRecord
    package var grant: GrantRecord
    /// The user's id as this app sees it.
    package var scopedID: String
    package var now: Date

    package var dataAccessExpiresAt: Date { grant.dataAccessExpiresAt }
    package var isDataAccessExpired: Bool { now >= dataAccessExpiresAt }

    /// Whether the app may read data behind `permission` right now.
    package func has(_ permission: String) -> Bool {
        if permission == Permission.publicProfile { return true }
        return !isDataAccessExpired && grant.granted.contains(permission)
    }

    package init(
        tokenString: String, token: TokenRecord, app: AppRecord, user: UserRecord, grant: GrantRecord, scopedID: String,
        now: Date
    ) {
        self.tokenString = tokenString
        self.token = token
        self.app = app
        self.user = user
        self.grant = grant
        self.scopedID = scopedID
        self.now = now
    }
}
