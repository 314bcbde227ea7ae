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
    private var index: [CacheDependency: Set<String>] = [:]
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
        entries[key] = Entry(value: value, storedAt: instant, sequence: nextSequence)
        order.append((key, nextSequence))
        for dependency in value.cacheDependencies { index[dependency, default: []].insert(key) }
    }

    /// Removes the entry for `key`, if any, and its index slots.
    package mutating func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        for dependency in entry.value.cacheDependencies {
            guard var keys = index[dependency] else { continue }
            keys.remove(key)
            index[dependency] = keys.isEmpty ? nil : keys
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
        for key in keys { remove(key) }
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
