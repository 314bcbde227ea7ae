import GatehouseCore
import GatehouseProtocol

/// An app store that counts the reads reaching the store under it, to show what a cache saves.
package struct CountingAppStore: AppStore {
    package let base: any AppStore
    package let reads: ReadCounter

    package init(base: any AppStore, reads: ReadCounter) {
        self.base = base
        self.reads = reads
    }

    package func create(_ app: AppRecord) async throws { try await base.create(app) }
    package func find(id: String) async throws -> AppRecord? { reads.increment(); return try await base.find(id: id) }
    package func list() async throws -> [AppRecord] { try await base.list() }
    package func update(_ app: AppRecord) async throws { try await base.update(app) }
    package func setRole(appID: String, userID: String, role: AppRole?) async throws {
        try await base.setRole(appID: appID, userID: userID, role: role)
    }
    package func role(appID: String, userID: String) async throws -> AppRole? {
        try await base.role(appID: appID, userID: userID)
    }
    package func roles(appID: String) async throws -> [(userID: String, role: AppRole)] {
        try await base.roles(appID: appID)
    }
}

/// A counter that any task may bump.
package final class ReadCounter: Sendable {
    private let count = LockedValue(0)
    package init() {}
    package func increment() { count.withLockedValue { $0 += 1 } }
    package var value: Int { count.withLockedValue { $0 } }
}
