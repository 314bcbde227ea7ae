import Foundation
import NIOConcurrencyHelpers

/// Which cached token lookups a revocation (or expiry change) makes stale.
///
/// Sent between nodes as a short text payload (``payload`` / ``init(payload:)``); it carries ids only, never a
/// token or its hash.
public enum TokenInvalidation: Sendable, Equatable {
    /// One token, by id (revocation, expiry change).
    case token(id: String)
    /// Every token of one person for one app (app removal).
    case appUser(appID: String, userID: String)
    /// Every token of one person (password change, account deletion).
    case user(id: String)
    /// Every token minted from one authorization code (code replay).
    case code(id: String)
    /// Everything (a node lost contact with the other nodes and may have missed events).
    case all

    /// `kind:field[:field]`; ids never contain `:`.
    public var payload: String {
        switch self {
        case .token(let id): "token:\(id)"
        case .appUser(let app, let user): "app_user:\(app):\(user)"
        case .user(let id): "user:\(id)"
        case .code(let id): "code:\(id)"
        case .all: "all"
        }
    }

    /// Parses ``payload``; anything unrecognised means ``all`` (clearing too much is safe, too little is not).
    public init(payload: String) {
        let parts = payload.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("token", 2): self = .token(id: parts[1])
        case ("app_user", 3): self = .appUser(appID: parts[1], userID: parts[2])
        case ("user", 2): self = .user(id: parts[1])
        case ("code", 2): self = .code(id: parts[1])
        default: self = .all
        }
    }

    /// Whether this event makes the cached `record` stale.
    func matches(_ record: TokenRecord) -> Bool {
        switch self {
        case .token(let id): record.id == id
        case .appUser(let app, let user): record.appID == app && record.userID == user
        case .user(let id): record.userID == id
        case .code(let id): record.codeID == id
        case .all: true
        }
    }
}

/// A node-local cache of token records by hash, so a Graph call skips one database round trip.
///
/// Correctness rules:
/// - Only found tokens are cached (a token minted on another node must be found at once).
/// - Every invalidation bumps a generation counter; a lookup that started before an invalidation does not
///   store its (possibly stale) result (see ``lookup(_:load:)``).
/// - While the node cannot hear other nodes' invalidations (``setEnabled(_:)`` false), nothing is served
///   from or stored in the cache; re-enabling clears it.
/// - Entries also expire after `timeToLive` as a last safety net, and the cache holds at most `capacity`.
public final class TokenLookupCache: Sendable {
    struct Entry { var record: TokenRecord; var storedAt: ContinuousClock.Instant }
    struct State {
        var entries: [String: Entry] = [:]
        var generation: UInt64 = 0
        var enabled: Bool
    }

    private let state: NIOLockedValueBox<State>
    let capacity: Int
    let timeToLive: Duration

    /// - Parameters:
    ///   - enabled: whether lookups may be cached from the start (false until a listener is connected).
    public init(capacity: Int = 50_000, timeToLive: Duration = .seconds(300), enabled: Bool = true) {
        self.capacity = capacity
        self.timeToLive = timeToLive
        self.state = NIOLockedValueBox(State(enabled: enabled))
    }

    /// The cached record for `tokenHash`, or the one `load` reads (cached when found and still current).
    public func lookup(_ tokenHash: String, load: () async throws -> TokenRecord?) async throws -> TokenRecord? {
        let now = ContinuousClock.now
        let (hit, generation) = state.withLockedValue { state -> (TokenRecord?, UInt64?) in
            guard state.enabled else { return (nil, nil) }
            if let entry = state.entries[tokenHash] {
                if now - entry.storedAt < timeToLive { return (entry.record, state.generation) }
                state.entries[tokenHash] = nil
            }
            return (nil, state.generation)
        }
        if let hit { return hit }
        let record = try await load()
        if let record, let generation { store(record, ifGeneration: generation) }
        return record
    }

    /// Drops the entries `event` makes stale.
    public func invalidate(_ event: TokenInvalidation) {
        state.withLockedValue { state in
            state.generation &+= 1
            if event == .all {
                state.entries.removeAll(keepingCapacity: true)
            } else {
                state.entries = state.entries.filter { !event.matches($0.value.record) }
            }
        }
    }

    /// Turns caching on or off; both directions start from an empty cache.
    public func setEnabled(_ enabled: Bool) {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.removeAll()
            state.enabled = enabled
        }
    }

    /// Whether lookups are currently cached.
    public var isEnabled: Bool { state.withLockedValue { $0.enabled } }

    /// How many records are cached (for tests).
    public var count: Int { state.withLockedValue { $0.entries.count } }

    private func store(_ record: TokenRecord, ifGeneration generation: UInt64) {
        state.withLockedValue { state in
            guard state.enabled, state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[record.tokenHash] = Entry(record: record, storedAt: .now)
        }
    }
}
