import GatehouseCore

/// One node's caches, as both backends open them: all off until the storage's ``CacheInvalidationFeed`` switches
/// them on, and aging on the node's clock.
struct NodeCacheSet {
    let tokens: TokenLookupCache
    let keys: SigningKeyCache
    let callers: CallerCache
    let injections: InjectionCache
    let apps: AppCache

    init(clock: any GatehouseClock) {
        tokens = TokenLookupCache(enabled: false, clock: clock)
        keys = SigningKeyCache(enabled: false, clock: clock)
        callers = CallerCache(capacity: CallerFacts.nodeCacheCapacity, enabled: false, clock: clock)
        injections = InjectionCache(enabled: false, clock: clock)
        apps = AppCache(capacity: 10_000, enabled: false, clock: clock)
    }

    /// Every cache as one target, for the feed.
    var all: NodeCaches { NodeCaches([tokens, keys, callers, injections, apps]) }
}
