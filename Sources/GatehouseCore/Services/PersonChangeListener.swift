import Foundation

/// Hears every change to a person's profile and to what they granted an app, whichever path made it (the
/// settings pages, the dialog, the Graph API, the admin API, the console, the CLI, scenarios, test users):
/// ``Storage/announcingChanges(to:)`` wraps the stores they all write through. Webhooks listen here; so can any
/// other consumer of "something about a person changed" (add a ``PersonChangeListeners`` member).
package protocol PersonChangeListener: Sendable {
    /// Whether anyone is listening to `appID`'s grants: when not, a grant write is not preceded by a read of the
    /// grant it replaces (the login's hot path).
    func watchesGrants(appID: String) async -> Bool
    /// A person's stored profile changed from `old` to `new` (called after the write).
    func profileChanged(from old: UserRecord, to new: UserRecord) async
    /// What a person granted an app changed: `old` nil for a first login, `new` nil for a removal.
    func grantChanged(from old: GrantRecord?, to new: GrantRecord?) async
}

/// Several listeners as one, each told in turn. ``watchesGrants(appID:)`` stops at the first that watches: list
/// the listeners that answer without a read first.
package struct PersonChangeListeners: PersonChangeListener {
    package var members: [any PersonChangeListener]

    package init(_ members: [any PersonChangeListener]) { self.members = members }

    package func watchesGrants(appID: String) async -> Bool {
        for member in members where await member.watchesGrants(appID: appID) { return true }
        return false
    }

    package func profileChanged(from old: UserRecord, to new: UserRecord) async {
        for member in members { await member.profileChanged(from: old, to: new) }
    }

    package func grantChanged(from old: GrantRecord?, to new: GrantRecord?) async {
        for member in members { await member.grantChanged(from: old, to: new) }
    }
}

extension Storage {
    /// These stores with every profile and grant write announced to `listener` once it is stored (a grant
    /// written in a transaction, once the transaction commits).
    package func announcingChanges(to listener: any PersonChangeListener) -> Storage {
        var storage = self
        storage.users = AnnouncingUserStore(base: users, listener: listener)
        storage.grants = AnnouncingGrantStore(base: grants, listener: listener)
        if let writes { storage.writes = AnnouncingWriteTransactions(base: writes, grants: grants, listener: listener) }
        return storage
    }
}

/// Reads the person before an update so the listener hears what changed.
struct AnnouncingUserStore: UserStore {
    let base: any UserStore
    let listener: any PersonChangeListener

    func create(_ user: UserRecord) async throws { try await base.create(user) }
    func find(id: String) async throws -> UserRecord? { try await base.find(id: id) }
    func find(email: String) async throws -> UserRecord? { try await base.find(email: email) }
    func list() async throws -> [UserRecord] { try await base.list() }
    func testUsers(appID: String) async throws -> [UserRecord] { try await base.testUsers(appID: appID) }
    func associatedApps(testUserID: String) async throws -> [String] {
        try await base.associatedApps(testUserID: testUserID)
    }
    func associate(testUserID: String, appID: String, at: Date) async throws -> Bool {
        try await base.associate(testUserID: testUserID, appID: appID, at: at)
    }
    func dissociate(testUserID: String, appID: String) async throws -> Bool {
        try await base.dissociate(testUserID: testUserID, appID: appID)
    }
    func update(_ user: UserRecord) async throws {
        let old = try await base.find(id: user.id)
        try await base.update(user)
        if let old, old != user { await listener.profileChanged(from: old, to: user) }
    }
    func delete(id: String) async throws { try await base.delete(id: id) }
    func scopedID(appID: String, userID: String) async throws -> String {
        try await base.scopedID(appID: appID, userID: userID)
    }
    func userID(appID: String, scopedID: String) async throws -> String? {
        try await base.userID(appID: appID, scopedID: scopedID)
    }
    func scopedIDs(userID: String) async throws -> [(appID: String, scopedID: String)] {
        try await base.scopedIDs(userID: userID)
    }
    func assignScopedID(appID: String, userID: String, scopedID: String) async throws {
        try await base.assignScopedID(appID: appID, userID: userID, scopedID: scopedID)
    }
}

/// Reads the grant a write replaces, for apps someone listens to, and announces the change after the write.
struct AnnouncingGrantStore: GrantStore {
    let base: any GrantStore
    let listener: any PersonChangeListener

    func find(appID: String, userID: String) async throws -> GrantRecord? {
        try await base.find(appID: appID, userID: userID)
    }
    func save(_ grant: GrantRecord) async throws {
        guard await listener.watchesGrants(appID: grant.appID) else { return try await base.save(grant) }
        let old = try await base.find(appID: grant.appID, userID: grant.userID)
        try await base.save(grant)
        await listener.grantChanged(from: old, to: grant)
    }
    func delete(appID: String, userID: String) async throws {
        guard await listener.watchesGrants(appID: appID) else {
            return try await base.delete(appID: appID, userID: userID)
        }
        let old = try await base.find(appID: appID, userID: userID)
        try await base.delete(appID: appID, userID: userID)
        if let old { await listener.grantChanged(from: old, to: nil) }
    }
    func grants(userID: String) async throws -> [GrantRecord] { try await base.grants(userID: userID) }
    func grants(appID: String) async throws -> [GrantRecord] { try await base.grants(appID: appID) }
}

/// Grant writes inside a transaction are gathered and announced once it commits (a rolled-back one is not).
struct AnnouncingWriteTransactions: WriteTransactions {
    let base: any WriteTransactions
    /// The plain grant store, to read what a one-statement consent replaces.
    let grants: any GrantStore
    let listener: any PersonChangeListener

    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        let listener = self.listener
        let (result, changes) = try await base.write { tx in
            // A fresh record per run: a group commit may run the body again.
            let recorder = GrantChangeRecorder(base: tx.grants, listener: listener)
            var stores = tx
            stores.grants = recorder
            let result = try await body(stores)
            return (result, recorder.changes.withLockedValue { $0 })
        }
        for change in changes { await listener.grantChanged(from: change.old, to: change.new) }
        return result
    }

    var storesEventsInTransaction: Bool { base.storesEventsInTransaction }

    /// No grant changes here: the backend's own (one statement on PostgreSQL).
    func consumeCode(
        id: String, at: Date, storing token: TokenRecord,
        recording record: @escaping @Sendable (any TransactionEventRecorder) async throws -> Void
    ) async throws -> Bool {
        try await base.consumeCode(id: id, at: at, storing: token, recording: record)
    }

    func consumeCode(
        id: String, at: Date, storing token: TokenRecord, storingEvents events: [GatehouseEvent]
    ) async throws -> Bool? {
        try await base.consumeCode(id: id, at: at, storing: token, storingEvents: events)
    }

    func saveGrant(_ grant: GrantRecord, storing code: AuthCodeRecord) async throws {
        guard await listener.watchesGrants(appID: grant.appID) else {
            return try await base.saveGrant(grant, storing: code)
        }
        let old = try await grants.find(appID: grant.appID, userID: grant.userID)
        try await base.saveGrant(grant, storing: code)
        await listener.grantChanged(from: old, to: grant)
    }
}

/// A transaction's grant store that remembers each change it wrote, for announcing after the commit.
private struct GrantChangeRecorder: GrantStore {
    struct Change: Sendable {
        var old: GrantRecord?
        var new: GrantRecord?
    }

    let base: any GrantStore
    let listener: any PersonChangeListener
    let changes = LockedValue<[Change]>([])

    func find(appID: String, userID: String) async throws -> GrantRecord? {
        try await base.find(appID: appID, userID: userID)
    }
    func save(_ grant: GrantRecord) async throws {
        guard await listener.watchesGrants(appID: grant.appID) else { return try await base.save(grant) }
        let old = try await base.find(appID: grant.appID, userID: grant.userID)
        try await base.save(grant)
        changes.withLockedValue { $0.append(Change(old: old, new: grant)) }
    }
    func delete(appID: String, userID: String) async throws {
        guard await listener.watchesGrants(appID: appID) else {
            return try await base.delete(appID: appID, userID: userID)
        }
        let old = try await base.find(appID: appID, userID: userID)
        try await base.delete(appID: appID, userID: userID)
        if let old { changes.withLockedValue { $0.append(Change(old: old, new: nil)) } }
    }
    func grants(userID: String) async throws -> [GrantRecord] { try await base.grants(userID: userID) }
    func grants(appID: String) async throws -> [GrantRecord] { try await base.grants(appID: appID) }
}
