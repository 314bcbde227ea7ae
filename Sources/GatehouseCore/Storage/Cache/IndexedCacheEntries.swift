import Foundation

/// The entries of an ``InvalidationCache`` with an index from each ``CacheDependency`` to the keys that
/// depend on it, and an insertion queue: invalidating one token, person, app, app-person pair or code touches
/// only the matching entries, and a full cache evicts its oldest entry instead of emptying itself.
/// Not thread-safe: the cache holds it under its lock.
package struct IndexedCacheEntries<Value: CacheableFacts>: Sendable {
    package struct Entry: Sendable {
        var value: Value
        var storedAt: Date
        /// Position in ``order``, to tell a live queue slot from one left behind by a removal.
        var sequence: UInt64
    }

    private var entries: [String: Entry] = [:]
    private var index: [CacheDependency: DependentKeys] = [:]
    /// Keys in insertion order with their sequence; removed entries leave stale slots, skipped on eviction and
    /// dropped when the queue grows past twice the live count (so every operation is amortised O(1)).
    private var order: [(key: String, sequence: UInt64)] = []
    private var head = 0
    private var nextSequence: UInt64 = 0

    package var count: Int { entries.count }

    package subscript(key: String) -> Entry? { entries[key] }

    /// Stores `value` under `key` (replacing any entry), evicting the oldest entries beyond `capacity`.
    package mutating func insert(_ value: Value, for key: String, at instant: Date, capacity: Int) {
        remove(key)
        while entries.count >= max(capacity, 1), evictOldest() {}
        nextSequence &+= 1
        let dependencies = value.cacheDependencies
        // A value read from the same records as one already held may share their storage (one app's strings,
        // say, instead of a copy per cached caller): the first dependency names the records most share.
        var value = value
        if let first = dependencies.first, let neighbour = index[first]?.anyKey, let held = entries[neighbour] {
            value = value.sharingStorage(with: held.value)
        }
        entries[key] = Entry(value: value, storedAt: instant, sequence: nextSequence)
        order.append((key, nextSequence))
        for dependency in dependencies {
            if index[dependency]?.insert(key) == nil { index[dependency] = .one(key) }
        }
    }

    /// Removes the entry for `key`, if any, and its index slots.
    package mutating func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        for dependency in entry.value.cacheDependencies {
            // Mutated in place: copying the set out and back would copy all of it (an app's set holds every
            // cached caller of the app), making each eviction O(n).
            if index[dependency]?.remove(key) == true { index[dependency] = nil }
        }
        if order.count > 2 * entries.count + 16 { compact() }
    }

    /// Removes exactly the entries `event` makes stale, found through the index.
    package mutating func remove(matching event: TokenInvalidation) {
        if event == .all {
            self = IndexedCacheEntries()
            return
        }
        guard let dependency = event.dependency, let keys = index[dependency] else { return }
        for key in keys.all { remove(key) }
    }

    /// Drops the oldest live entry; false when there is none.
    private mutating func evictOldest() -> Bool {
        while head < order.count {
            let slot = order[head]
            head += 1
            if entries[slot.key]?.sequence == slot.sequence {
                remove(slot.key)
                return true
            }
        }
        return false
    }

    private mutating func compact() {
        order = order[head...].filter { entries[$0.key]?.sequence == $0.sequence }
        head = 0
    }
}

/// The keys that depend on one record. Most records (a token, a code, a person in one app) have one cached
/// value, which needs no set (an allocation of its own) to hold it: see `docs/BENCHMARKS.md`, eighth run.
enum DependentKeys: Sendable {
    case one(String)
    case many(Set<String>)

    /// Adds `key`; returns Void so `index[d]?.insert(k) == nil` tells an absent entry.
    mutating func insert(_ key: String) {
        switch self {
        case .one(let held) where held == key: return
        case .one(let held): self = .many([held, key])
        case .many(var keys):
            self = .one(key)  // releases the set's storage, so the insert below does not copy it
            keys.insert(key)
            self = .many(keys)
        }
    }

    /// Removes `key`; true when no key is left.
    mutating func remove(_ key: String) -> Bool {
        switch self {
        case .one(let held): return held == key
        case .many(var keys):
            self = .one(key)  // as in insert: the set is uniquely held while it changes
            keys.remove(key)
            if keys.count == 1, let last = keys.first { self = .one(last) } else { self = .many(keys) }
            return keys.isEmpty
        }
    }

    var anyKey: String? {
        switch self {
        case .one(let key): key
        case .many(let keys): keys.first
        }
    }

    var all: [String] {
        switch self {
        case .one(let key): [key]
        case .many(let keys): Array(keys)
        }
    }
}
