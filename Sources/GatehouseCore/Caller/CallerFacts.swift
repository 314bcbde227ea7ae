import Foundation
import GatehouseProtocol

/// What a presented access token stands for, as read from the database: records only, never a verdict.
///
/// Kept per node in a ``CallerCache`` keyed by the token's hash, so a Graph call or `debug_token` on a known
/// token reads nothing from the database. Whether the token is valid *now* (revoked, expired on the injected
/// clock, password changed since, the person's account state, grant present) is decided on every request by ``CallerRules/evaluate(_:text:now:)``.
///
/// A class, and immutable: the cache hands out the same instance on every hit, so a hit costs one retain
/// instead of copying four records field by field (about forty reference counts).
package final class CallerFacts: Sendable {
    package enum Kind: Sendable {
        /// A user token with the person, their grant and their id inside the app.
        case user(token: TokenRecord, user: UserRecord, grant: GrantRecord, scopedID: String)
        /// `APPID|…` that matched the app's secret, its client token, or a minted app token (`token`).
        case app(token: TokenRecord?)
    }

    package let app: AppRecord
    package let kind: Kind

    /// The person as cached: the picture's bytes are dropped (they are large and only `/pictures` serves them,
    /// from the database) but its presence is kept as an empty value, so `is_silhouette` answers the same.
    /// The password hash is dropped too: no Graph answer reads it (logging in reads the person afresh), and a
    /// node's memory then holds no password hashes for its cached callers.
    package static func cachedForm(of user: UserRecord) -> UserRecord {
        var user = user
        if user.picture != nil { user.picture = Data() }
        user.passwordHash = ""
        return user
    }

    package init(app: AppRecord, kind: Kind) {
        self.app = app
        self.kind = kind
    }
}

extension CallerFacts: CacheableFacts {
    /// Callers of one app share its record: read once per cache miss, each would otherwise hold its own copy
    /// of the app's strings and lists (about 500 bytes a caller). The token's and grant's ids share the
    /// app's and the person's strings for the same reason.
    package func sharingStorage(with neighbour: CallerFacts) -> CallerFacts {
        let app = neighbour.app == self.app ? neighbour.app : self.app
        switch kind {
        case .user(var token, let user, var grant, let scopedID):
            if token.appID == app.id { token.appID = app.id }
            if grant.appID == app.id { grant.appID = app.id }
            if token.userID == user.id { token.userID = user.id }
            if grant.userID == user.id { grant.userID = user.id }
            return CallerFacts(app: app, kind: .user(token: token, user: user, grant: grant, scopedID: scopedID))
        case .app:
            return CallerFacts(app: app, kind: kind)
        }
    }

    /// Every write that could change what this caller sees names one of these (see the invalidating stores).
    package var cacheDependencies: [CacheDependency] {
        var keys: [CacheDependency] = [.app(app.id)]
        switch kind {
        case .user(let token, let user, _, _):
            keys += token.cacheDependencies
            if token.userID != user.id {
                keys.append(.user(user.id))
                keys.append(.appUser(app.id, user.id))
            }
        case .app(let token):
            if let token { keys += token.cacheDependencies }
        }
        return keys
    }
}

/// The per-node cache of resolved callers, keyed by the token's SHA-256.
package typealias CallerCache = InvalidationCache<CallerFacts>

extension CallerFacts {
    /// How many callers one node keeps. A cached caller takes about 1.7 KB (measured with the server's RSS over
    /// 70,000 never-seen tokens, `docs/BENCHMARKS.md`), so a full cache is about 70 MB and a node with every
    /// cache full stays within its 150 MB budget. Beyond it, the oldest caller makes room.
    package static let nodeCacheCapacity = 40_000
}

extension InvalidationCache where Value == CallerFacts {
    /// ``begin(_:)`` compiled for callers here, where the value type is known: called generically from another
    /// module, the lookup takes Swift's unspecialised dictionary path, on every request with a token.
    package func beginCaller(_ key: String) -> (hit: CallerFacts?, generation: UInt64?) { begin(key) }

    /// ``store(_:for:ifGeneration:)``, compiled for callers (see ``beginCaller(_:)``).
    package func storeCaller(_ facts: CallerFacts, for key: String, ifGeneration generation: UInt64) {
        store(facts, for: key, ifGeneration: generation)
    }
}

/// The rules that turn a token's facts into a caller or an error, evaluated on every request: the one place
/// they are written. The node's cache hands them cached facts; the database path hands them the facts it has
/// just read (``TokenService``), so a hit and a miss cannot answer differently.
package enum CallerRules {
    /// The verdict for `text` (whose hash led to `facts`) at `now`; nil when the facts do not apply to `text`
    /// (then the database decides, or the token is unknown).
    package static func evaluate(_ facts: CallerFacts, text: String, now: Date) -> Result<Caller, GraphError>? {
        let app = facts.app
        switch facts.kind {
        case .app(let token):
            guard let bar = text.firstIndex(of: "|"), String(text[..<bar]) == app.id else { return nil }
            let rest = String(text[text.index(after: bar)...])
            if constantTimeEquals(rest, app.secret) { return .success(.app(app)) }
            if constantTimeEquals(rest, app.clientToken) { return .success(.client(app)) }
            if let token, token.kind == .app, token.appID == app.id, token.revokedAt == nil {
                return .success(.app(app))
            }
            return nil
        case .user(let token, let user, let grant, let scopedID):
            guard !text.utf8.contains(UInt8(ascii: "|")), token.kind == .user, token.userID == user.id,
                token.appID == app.id,
                grant.appID == app.id, grant.userID == user.id
            else { return nil }
            if let refusal = refusal(token: token, user: user, grant: grant, appID: app.id, now: now) {
                return .failure(refusal)
            }
            return .success(
                .user(
                    UserCaller(
                        tokenString: text, token: token, app: app, user: user, grant: grant, scopedID: scopedID,
                        now: now)))
        }
    }

    /// Why a user token does not work at `now`, in Facebook's order of checks; nil when it works. `grant` is nil
    /// when the person has removed the app (only the database path can see that: the cache keeps valid callers).
    package static func refusal(token: TokenRecord, user: UserRecord, grant: GrantRecord?, appID: String, now: Date)
        -> GraphError?
    {
        // A token issued before the change, or revoked by it (on a clock that stands still, as the emulator's
        // does, the two can share an instant), answers 460, as Facebook's answer to a changed password.
        if let changed = user.passwordChangedAt, changed > token.issuedAt || token.revokedAt == changed {
            return .passwordChanged
        }
        // Before the grant: a person in a state has no working token at all.
        if let refused = user.accountState.graphError { return refused }
        if grant == nil { return .appNotAuthorized(appID: appID) }
        if token.revokedAt != nil { return .sessionLoggedOut }
        if let expires = token.expiresAt, now >= expires { return .tokenExpired(expiredAt: expires, now: now) }
        return nil
    }
}
