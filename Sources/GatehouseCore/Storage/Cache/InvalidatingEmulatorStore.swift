import Foundation

/// An `EmulatorStore` whose `eraseAll()` (used by `import`) drops every cache of the node and of the other
/// nodes: it deletes apps, people (and by cascade their tokens) and signing keys behind the other decorators'
/// backs. Every other call passes straight through.
public struct InvalidatingEmulatorStore: EmulatorStore {
    package let base: any EmulatorStore
    package let caches: any CacheInvalidationTarget
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `caches` are this node's, `publisher` reaches the other nodes.
    public init(base: any EmulatorStore, caches: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher) {
        self.base = base
        self.caches = caches
        self.publisher = publisher
    }

    public func insertInjection(_ injection: InjectedErrorRecord) async throws { try await base.insertInjection(injection) }
    public func injections() async throws -> [InjectedErrorRecord] { try await base.injections() }
    public func injections(targets: [(InjectionTargetKind, String)]) async throws -> [InjectedErrorRecord] {
        try await base.injections(targets: targets)
    }
    public func consumeInjection(id: String) async throws -> Bool { try await base.consumeInjection(id: id) }
    public func deleteInjection(id: String) async throws -> Bool { try await base.deleteInjection(id: id) }
    public func deleteAllInjections() async throws { try await base.deleteAllInjections() }
    public func setting(_ name: String) async throws -> String? { try await base.setting(name) }
    public func setSetting(_ name: String, _ value: String?) async throws { try await base.setSetting(name, value) }

    public func eraseAll() async throws {
        try await invalidating(.all, local: caches, publisher: publisher) { try await base.eraseAll() }
    }
}
