// The seeds' remote token cache strategy (TokenCacheHowTo): tokens live on the app's server, keyed by the
// app's own user, with extra data cached beside them. Ported by changing the import.
import Foundation
import GatehouseKit

/// Stands in for the app's backend: one record per app user.
final class FakeTokenBackend: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [String: Data] = [:]
    private var extras: [String: [String: String]] = [:]
    private(set) var writes = 0

    func put(_ data: Data?, extra: [String: String]?, for user: String) {
        lock.withLock {
            writes += 1
            records[user] = data
            extras[user] = extra
        }
    }

    func get(_ user: String) -> (Data?, [String: String]?) { lock.withLock { (records[user], extras[user]) } }
}

/// The seeds' `MyTokenCachingStrategy`, as a `TokenCaching`.
final class RemoteTokenCachingStrategy: TokenCaching, @unchecked Sendable {
    let backend: FakeTokenBackend
    let appUserID: String
    private let lock = NSLock()
    private var _authenticationToken: AuthenticationToken?

    init(backend: FakeTokenBackend, appUserID: String) {
        self.backend = backend
        self.appUserID = appUserID
    }

    /// `fetchFBAccessTokenData` / `cacheFBAccessTokenData:`.
    var accessToken: AccessToken? {
        get { backend.get(appUserID).0.flatMap { try? JSONDecoder().decode(AccessToken.self, from: $0) } }
        set { backend.put(newValue.flatMap { try? JSONEncoder().encode($0) }, extra: tokenInformation, for: appUserID) }
    }

    var authenticationToken: AuthenticationToken? {
        get { lock.withLock { _authenticationToken } }
        set { lock.withLock { _authenticationToken = newValue } }
    }

    /// `cacheTokenInformation:` / `fetchTokenInformation`: the extra data beside the token.
    var tokenInformation: [String: String]? {
        get { backend.get(appUserID).1 }
        set { backend.put(backend.get(appUserID).0, extra: newValue, for: appUserID) }
    }
}
