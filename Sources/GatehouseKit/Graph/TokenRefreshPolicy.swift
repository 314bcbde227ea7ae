import Foundation
import GatehouseProtocol

/// When and how the current token is refreshed (Facebook's `GraphRequestPiggybackManager`). No I/O.
enum TokenRefreshPolicy {
    /// A token is stale a day after its refresh date…
    static let refreshThreshold: TimeInterval = 24 * 60 * 60
    /// …and a stale token is tried at most once an hour.
    static let retryInterval: TimeInterval = 60 * 60

    /// Whether a connection starting `now` should piggyback the refresh pair.
    static func shouldPiggyback(token: AccessToken?, now: Date, lastAttempt: Date?) -> Bool {
        guard let token else { return false }
        let lastAttempt = lastAttempt ?? .distantPast
        return now.timeIntervalSince(token.refreshDate) > refreshThreshold
            && now.timeIntervalSince(lastAttempt) > retryInterval
    }

    /// `oauth/access_token?grant_type=fb_extend_sso_token&fields=&client_id=…`, with the token's own string.
    static func extendRequest(for token: AccessToken, version: String) -> GraphRequest {
        GraphRequest(
            graphPath: WirePath.accessToken,
            parameters: ["grant_type": "fb_extend_sso_token", "fields": "", "client_id": token.appID],
            tokenString: token.tokenString, version: version, httpMethod: .get, flags: .disableErrorRecovery)
    }

    /// `me/permissions?fields=`, with the token's own string.
    static func permissionsRequest(for token: AccessToken, version: String) -> GraphRequest {
        GraphRequest(
            graphPath: "me/permissions", parameters: ["fields": ""], tokenString: token.tokenString,
            version: version, httpMethod: .get, flags: .disableErrorRecovery)
    }

    /// The refreshed token: new string and dates from the extend reply (kept when absent), permission
    /// sets from the permissions reply (kept when it failed), `refreshDate = now`.
    static func merge(_ token: AccessToken, extendResult: JSONValue?, permissionsResult: JSONValue?, now: Date)
        -> AccessToken
    {
        func date(_ key: String) -> Date? {
            guard let seconds = extendResult?[key]?.doubleValue ?? extendResult?[key]?.stringValue.flatMap(Double.init),
                seconds > 0
            else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        var granted = token.permissions.map(\.name), declined = token.declinedPermissions.map(\.name)
        var expired = token.expiredPermissions.map(\.name)
        if let data = permissionsResult?["data"]?.arrayValue {
            granted = []; declined = []; expired = []
            for item in data {
                guard let name = item["permission"]?.stringValue, let status = item["status"]?.stringValue else {
                    continue
                }
                switch status {
                case "granted": granted.append(name)
                case "declined": declined.append(name)
                case "expired": expired.append(name)
                default: break
                }
            }
        }
        let tokenString =
            extendResult?["access_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? token.tokenString
        return AccessToken(
            tokenString: tokenString, permissions: granted, declinedPermissions: declined,
            expiredPermissions: expired, appID: token.appID, userID: token.userID,
            expirationDate: date("expires_at") ?? token.expirationDate, refreshDate: now,
            dataAccessExpirationDate: date("data_access_expiration_time") ?? token.dataAccessExpirationDate,
            loginType: token.loginType)
    }
}

/// When each environment last tried a refresh, so the hourly limit holds per environment without
/// changing `GatehouseKitEnvironment` itself.
final class TokenRefreshAttempts: @unchecked Sendable {
    static let shared = TokenRefreshAttempts()

    private struct Record {
        weak var environment: GatehouseKitEnvironment?
        var date: Date
    }

    private let lock = NSLock()
    private var records: [ObjectIdentifier: Record] = [:]

    func lastAttempt(in environment: GatehouseKitEnvironment) -> Date? {
        lock.withLock {
            guard let record = records[ObjectIdentifier(environment)], record.environment === environment else {
                return nil
            }
            return record.date
        }
    }

    func record(_ date: Date, in environment: GatehouseKitEnvironment) {
        lock.withLock {
            records = records.filter { $0.value.environment != nil }
            records[ObjectIdentifier(environment)] = Record(environment: environment, date: date)
        }
    }

    /// Atomically checks eligibility and records the attempt, so two connections starting together
    /// piggyback one refresh between them.
    func claimRefresh(for token: AccessToken?, in environment: GatehouseKitEnvironment) -> Bool {
        let now = environment.clock.now()
        return lock.withLock {
            let record = records[ObjectIdentifier(environment)]
            let last = record?.environment === environment ? record?.date : nil
            guard TokenRefreshPolicy.shouldPiggyback(token: token, now: now, lastAttempt: last) else { return false }
            records = records.filter { $0.value.environment != nil }
            records[ObjectIdentifier(environment)] = Record(environment: environment, date: now)
            return true
        }
    }
}
