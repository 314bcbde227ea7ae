import Foundation

/// An `AppStore` that answers `find(id:)` from the node's ``AppCache`` (when given) and announces every change
/// to an app, so the cached app and cached callers of that app (its settings, secret, client token) are dropped
/// here at once and on the other nodes through the publisher.
package struct InvalidatingAppStore: AppStore {
    package let base: any AppStore
    /// The node's apps by id; nil reads every app from `base`.
    package let cache: AppCache?
    package let caches: any CacheInvalidationTarget
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `caches` are this node's (`cache` among them), `publisher` reaches the other nodes.
    package init(
        base: any AppStore, cache: AppCache? = nil, caches: any CacheInvalidationTarget,
        publisher: any TokenInvalidationPublisher
    ) {
        self.base = base
        self.cache = cache
        self.caches = caches
        self.publisher = publisher
    }

    /// Not announced: no node can hold facts about an app that did not exist (an erase, after which ids may
    /// come back, already dropped everything), and a needless event would drop other entries.
    package func create(_ app: AppRecord) async throws { try await base.create(app) }
    /// Only found apps are kept, so an app created on another node is found at once.
    package func find(id: String) async throws -> AppRecord? {
        guard let cache else { return try await base.find(id: id) }
        return try await cache.lookup(id) { try await base.find(id: id) }
    }
    package func list() async throws -> [AppRecord] { try await base.list() }
    package func update(_ app: AppRecord) async throws {
        try await invalidating(.app(id: app.id), local: caches, publisher: publisher) { try await base.update(app) }
    }
    package func setRole(appID: String, userID: String, role: AppRole?) async throws {
        try await invalidating(.app(id: appID), local: caches, publisher: publisher) {
            try await base.setRole(appID: appID, userID: userID, role: role)
        }
    }
    package func role(appID: String, userID: String) async throws -> AppRole? {
        try await base.role(appID: appID, userID: userID)
    }
    package func roles(appID: String) async throws -> [(userID: String, role: AppRole)] {
        try await base.roles(appID: appID)
    }
}

/// A `UserStore` that announces every change to a person (profile fields, picture, password, deletion) and to
/// their app-scoped ids, so cached callers showing that person are dropped everywhere.
package struct InvalidatingUserStore: UserStore {
    package let base: any UserStore
    package let caches: any CacheInvalidationTarget
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `caches` are this node's, `publisher` reaches the other nodes.
    package init(base: any UserStore, caches: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher) {
        self.base = base
        self.caches = caches
        self.publisher = publisher
    }

    /// Not announced, like a new app: nothing cached can be about a person who did not exist.
    package func create(_ user: UserRecord) async throws { try await base.create(user) }
    package func find(id: String) async throws -> UserRecord? { try await base.find(id: id) }
    package func find(email: String) async throws -> UserRecord? { try await base.find(email: email) }
    package func list() async throws -> [UserRecord] { try await base.list() }
    package func testUsers(appID: String) async throws -> [UserRecord] { try await base.testUsers(appID: appID) }
    package func associatedApps(testUserID: String) async throws -> [String] {
        try await base.associatedApps(testUserID: testUserID)
    }
    /// Not announced: nothing cached says which apps hold a test user.
    package func associate(testUserID: String, appID: String, at: Date) async throws -> Bool {
        try await base.associate(testUserID: testUserID, appID: appID, at: at)
    }
    package func dissociate(testUserID: String, appID: String) async throws -> Bool {
        try await base.dissociate(testUserID: testUserID, appID: appID)
    }
    package func update(_ user: UserRecord) async throws {
        try await invalidating(.user(id: user.id), local: caches, publisher: publisher) { try await base.update(user) }
    }
    package func delete(id: String) async throws {
        try await invalidating(.user(id: id), local: caches, publisher: publisher) { try await base.delete(id: id) }
    }
    /// Creates the id on first use, but never changes an existing one, so nothing cached can become stale.
    package func scopedID(appID: String, userID: String) async throws -> String {
        try await base.scopedID(appID: appID, userID: userID)
    }
    package func userID(appID: String, scopedID: String) async throws -> String? {
        try await base.userID(appID: appID, scopedID: scopedID)
    }
    package func scopedIDs(userID: String) async throws -> [(appID: String, scopedID: String)] {
        try await base.scopedIDs(userID: userID)
    }
    package func assignScopedID(appID: String, userID: String, scopedID: String) async throws {
        try await invalidating(.appUser(appID: appID, userID: userID), local: caches, publisher: publisher) {
            try await base.assignScopedID(appID: appID, userID: userID, scopedID: scopedID)
        }
    }
}

/// A `GrantStore` that announces every grant, decline and removal, so cached callers of that person in that
/// app are dropped everywhere (their scopes and data-access clock come from the grant).
package struct InvalidatingGrantStore: GrantStore {
    package let base: any GrantStore
    package let caches: any CacheInvalidationTarget
    package let publisher: any TokenInvalidationPublisher

    /// Wraps `base`; `caches` are this node's, `publisher` reaches the other nodes.
    package init(base: any GrantStore, caches: any CacheInvalidationTarget, publisher: any TokenInvalidationPublisher) {
        self.base = base
        self.caches = caches
        self.publisher = publisher
    }

    package func find(appID: String, userID: String) async throws -> GrantRecord? {
        try await base.find(appID: appID, userID: userID)
    }
    package func save(_ grant: GrantRecord) async throws {
        try await invalidating(.appUser(appID: grant.appID, userID: grant.userID), local: caches, publisher: publisher)
        {
            try await base.save(grant)
        }
    }
    package func delete(appID: String, userID: String) async throws {
        try await invalidating(.appUser(appID: appID, userID: userID), local: caches, publisher: publisher) {
            try await base.delete(appID: appID, userID: userID)
        }
    }
    package func grants(userID: String) async throws -> [GrantRecord] { try await base.grants(userID: userID) }
    package func grants(appID: String) async throws -> [GrantRecord] { try await base.grants(appID: appID) }
}

/// The node's apps by id, read by every token-endpoint call, dialog and consent. Dropped by
/// ``TokenInvalidation/app(id:)`` (settings, secret reset, roles) and ``TokenInvalidation/all``.
package typealias AppCache = InvalidationCache<AppRecord>

extension AppRecord: CacheableFacts {
    package var cacheDependencies: [CacheDependency] { [.app(id)] }
}
