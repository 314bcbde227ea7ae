import Foundation

/// An app store that can delete an app with everything that hangs off it: roles, grants, codes, tokens, app-scoped
/// ids, posts, requests, callbacks, device codes, token cache slots, and the app's test users (the admin API's
/// `DELETE /apps/{id}`). A separate protocol, so stores and test doubles that never delete apps need not.
package protocol AppDeleting: Sendable {
    /// Deletes the app; false when there was none.
    func delete(appID: String) async throws -> Bool
}

extension Storage {
    /// Deletes an app through ``AppDeleting``.
    /// - Throws: `StorageError.unavailable` when the app store cannot delete apps.
    package func deleteApp(id: String) async throws -> Bool {
        guard let store = apps as? any AppDeleting else {
            throw StorageError.unavailable("this storage cannot delete apps")
        }
        return try await store.delete(appID: id)
    }
}

extension InvalidatingAppStore: AppDeleting {
    /// Announced like an update: every cached caller of the app (and the cached app) is dropped on every node.
    package func delete(appID: String) async throws -> Bool {
        guard let deleting = base as? any AppDeleting else {
            throw StorageError.unavailable("this storage cannot delete apps")
        }
        var deleted = false
        try await invalidating(.app(id: appID), local: caches, publisher: publisher) {
            deleted = try await deleting.delete(appID: appID)
        }
        return deleted
    }
}
