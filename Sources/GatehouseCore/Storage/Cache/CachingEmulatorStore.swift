import Foundation

/// An `EmulatorStore` that answers the injected-error reads from an ``InjectionCache`` and keeps every cache
/// current through the emulator's writes:
/// - adding, using up, deleting or clearing an injection drops the injection cache here and, through the
///   publisher, on every other node;
/// - `replaceAll(with:)` (the resets and `import`) drops every cache of the node and of the other nodes: it
///   deletes and writes apps, people (and by cascade their tokens) and signing keys behind the other decorators'
///   backs.
///
/// Settings pass straight through.
package struct CachingEmulatorStore: EmulatorStore {
    package let base: any EmulatorStore
    /// The node's copy of the injections; nil reads them from `base` every time.
    package let injectionCache: InjectionCache?
    package let caches: any CacheInvalidationTarget
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `caches` are this node's (the injection cache among them), `publisher` reaches the other nodes.
    package init(
        base: any EmulatorStore, injectionCache: InjectionCache?, caches: any CacheInvalidationTarget,
        publisher: any TokenInvalidationPublisher
    ) {
        self.base = base
        self.injectionCache = injectionCache
        self.caches = caches
        self.publisher = publisher
    }

    package func injections() async throws -> [InjectedErrorRecord] {
        guard let injectionCache else { return try await base.injections() }
        return try await injectionCache.value { try await base.injections() }
    }

    /// Filtered from the whole (cached) table, which is in the same order, oldest first.
    package func injections(targets: [(InjectionTargetKind, String)]) async throws -> [InjectedErrorRecord] {
        guard injectionCache != nil else { return try await base.injections(targets: targets) }
        return try await injections().filter { injection in
            targets.contains { $0.0 == injection.targetKind && $0.1 == injection.targetID }
        }
    }

    package func insertInjection(_ injection: InjectedErrorRecord) async throws {
        try await invalidating(.injections, local: caches, publisher: publisher) {
            try await base.insertInjection(injection)
        }
    }

    /// An injection without a count is never written to when used, so using it leaves every copy current.
    package func consumeInjection(id: String) async throws -> Bool {
        if let held = injectionCache?.peek().hit, held.contains(where: { $0.id == id && $0.remaining == nil }) {
            return try await base.consumeInjection(id: id)
        }
        var consumed = false
        try await invalidating(.injections, local: caches, publisher: publisher) {
            consumed = try await base.consumeInjection(id: id)
        }
        return consumed
    }

    package func deleteInjection(id: String) async throws -> Bool {
        var deleted = false
        try await invalidating(.injections, local: caches, publisher: publisher) {
            deleted = try await base.deleteInjection(id: id)
        }
        return deleted
    }

    package func deleteAllInjections() async throws {
        try await invalidating(.injections, local: caches, publisher: publisher) {
            try await base.deleteAllInjections()
        }
    }

    package func setting(_ name: String) async throws -> String? { try await base.setting(name) }
    package func setSetting(_ name: String, _ value: String?) async throws { try await base.setSetting(name, value) }

    package func replaceAll(with state: StoredState) async throws {
        try await invalidating(.all, local: caches, publisher: publisher) { try await base.replaceAll(with: state) }
    }

    /// Drops every cache too: `state` may hold signing keys or injections, which are cached whole.
    package func insertAll(_ state: StoredState) async throws {
        try await invalidating(.all, local: caches, publisher: publisher) { try await base.insertAll(state) }
    }
}
