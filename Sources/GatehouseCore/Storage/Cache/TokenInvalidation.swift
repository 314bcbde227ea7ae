import Foundation

/// Which cached reads a write makes stale: token lookups, resolved callers, signing keys.
///
/// Sent between nodes as a short text payload (``payload`` / ``init(payload:)``); it carries ids only, never a
/// token or its hash. The name predates the other caches; every node cache hears every event.
package enum TokenInvalidation: Sendable, Equatable {
    /// One token, by id (revocation, expiry change).
    case token(id: String)
    /// Every token of one person for one app (app removal), and that person's grant or app-scoped id there.
    case appUser(appID: String, userID: String)
    /// Every token of one person (password change, account deletion), and anything read from their record
    /// (profile fields, picture).
    case user(id: String)
    /// Every token minted from one authorization code (code replay).
    case code(id: String)
    /// Anything read from one app's record (settings, secret reset, roles).
    case app(id: String)
    /// The id_token signing keys (a rotation, a first key, an import); token records are unaffected.
    case signingKeys
    /// The injected errors (one added, used up or cleared); token records are unaffected.
    case injections
    /// Everything (a node lost contact with the other nodes and may have missed events).
    case all

    /// `kind:field[:field]`; ids never contain `:`.
    package var payload: String {
        switch self {
        case .token(let id): "token:\(id)"
        case .appUser(let app, let user): "app_user:\(app):\(user)"
        case .user(let id): "user:\(id)"
        case .code(let id): "code:\(id)"
        case .app(let id): "app:\(id)"
        case .signingKeys: "signing_keys"
        case .injections: "injections"
        case .all: "all"
        }
    }

    /// Parses ``payload``; anything unrecognised means ``all`` (clearing too much is safe, too little is not).
    package init(payload: String) {
        let parts = payload.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("token", 2): self = .token(id: parts[1])
        case ("app_user", 3): self = .appUser(appID: parts[1], userID: parts[2])
        case ("user", 2): self = .user(id: parts[1])
        case ("code", 2): self = .code(id: parts[1])
        case ("app", 2): self = .app(id: parts[1])
        case ("signing_keys", 1): self = .signingKeys
        case ("injections", 1): self = .injections
        default: self = .all
        }
    }

    /// The one index key whose entries this event makes stale; nil for ``all`` and for the whole-table
    /// snapshots (``signingKeys``, ``injections``).
    package var dependency: CacheDependency? {
        switch self {
        case .token(let id): .token(id)
        case .appUser(let app, let user): .appUser(app, user)
        case .user(let id): .user(id)
        case .code(let id): .code(id)
        case .app(let id): .app(id)
        case .signingKeys, .injections, .all: nil
        }
    }

    /// Whether this event makes a cached value with these dependencies stale (the reference the index is
    /// tested against).
    package func matches(_ value: some CacheableFacts) -> Bool {
        if self == .all { return true }
        guard let dependency else { return false }
        return value.cacheDependencies.contains(dependency)
    }
}

/// One thing a cached value was read from; an event naming it drops the value.
package enum CacheDependency: Hashable, Sendable {
    case token(String)
    case user(String)
    case appUser(String, String)
    case code(String)
    case app(String)
}

/// A value a node may cache: it says which records it was read from.
package protocol CacheableFacts: Sendable {
    /// Every record the value was read from.
    var cacheDependencies: [CacheDependency] { get }

    /// This value, sharing whatever storage it can with `neighbour`, a cached value read from the record
    /// named by this value's first dependency. Only memory changes: the result must equal this value.
    func sharingStorage(with neighbour: Self) -> Self
}

extension CacheableFacts {
    /// Nothing shared by default.
    package func sharingStorage(with neighbour: Self) -> Self { self }
}

extension TokenRecord: CacheableFacts {
    package var cacheDependencies: [CacheDependency] {
        var keys: [CacheDependency] = [.token(id)]
        if let userID {
            keys.append(.user(userID))
            keys.append(.appUser(appID, userID))
        }
        if let codeID { keys.append(.code(codeID)) }
        return keys
    }
}
