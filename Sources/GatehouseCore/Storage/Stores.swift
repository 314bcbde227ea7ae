import Foundation

/// Registered apps and the roles people hold on them.
package protocol AppStore: Sendable {
    func create(_ app: AppRecord) async throws
    func find(id: String) async throws -> AppRecord?
    /// All apps, oldest first.
    func list() async throws -> [AppRecord]
    /// Replaces the stored app with the same id. Throws `StorageError.notFound` if there is none.
    func update(_ app: AppRecord) async throws
    /// Sets a person's role on an app; nil removes it.
    func setRole(appID: String, userID: String, role: AppRole?) async throws
    func role(appID: String, userID: String) async throws -> AppRole?
    /// (userID, role) pairs for an app.
    func roles(appID: String) async throws -> [(userID: String, role: AppRole)]
}

/// People, their app-scoped ids, and test users.
package protocol UserStore: Sendable {
    /// Throws `StorageError.conflict` when the email is taken (emails are unique, case-insensitively).
    func create(_ user: UserRecord) async throws
    func find(id: String) async throws -> UserRecord?
    /// Case-insensitive.
    func find(email: String) async throws -> UserRecord?
    /// All users, oldest first.
    func list() async throws -> [UserRecord]
    /// An app's test users: those it holds (`testUserOfAppID`), oldest first, then those associated with it
    /// (``associate(testUserID:appID:at:)``), in the order they were associated.
    func testUsers(appID: String) async throws -> [UserRecord]
    /// The apps a test user was associated with besides the one that holds it, in the order they were associated.
    func associatedApps(testUserID: String) async throws -> [String]
    /// Associates a test user with another app; false when it already was.
    func associate(testUserID: String, appID: String, at: Date) async throws -> Bool
    /// Ends an association; false when there was none.
    func dissociate(testUserID: String, appID: String) async throws -> Bool
    func update(_ user: UserRecord) async throws
    /// Deletes the user with their grants, tokens, codes, sessions, roles, friendships and scoped ids.
    func delete(id: String) async throws
    /// The person's stable id inside one app, created on first use (Facebook's app-scoped user id).
    func scopedID(appID: String, userID: String) async throws -> String
    /// The global user id behind an app-scoped id, or nil.
    func userID(appID: String, scopedID: String) async throws -> String?
    /// Every app-scoped id of one person.
    func scopedIDs(userID: String) async throws -> [(appID: String, scopedID: String)]
    /// Records a known app-scoped id (import keeps ids stable). Throws `.conflict` if taken.
    func assignScopedID(appID: String, userID: String, scopedID: String) async throws
}

/// Symmetric friendships.
package protocol FriendshipStore: Sendable {
    /// Idempotent.
    func befriend(_ a: String, _ b: String, at: Date) async throws
    func unfriend(_ a: String, _ b: String) async throws
    /// Global ids of a user's friends, in the order the friendships were made.
    func friends(of userID: String) async throws -> [String]
    func areFriends(_ a: String, _ b: String) async throws -> Bool
    /// Records `from`'s friend request to `to`. When `to` had already asked `from`, the two become friends, both
    /// requests go, and the answer is true.
    func request(from: String, to: String, at: Date) async throws -> Bool
    /// The people who asked `userID` to be friends and are waiting for an answer, oldest first.
    func requests(to userID: String) async throws -> [String]
}

/// What each person granted to each app.
package protocol GrantStore: Sendable {
    func find(appID: String, userID: String) async throws -> GrantRecord?
    /// Inserts or replaces the grant for (appID, userID).
    func save(_ grant: GrantRecord) async throws
    func delete(appID: String, userID: String) async throws
    /// All of one person's grants (the apps they logged in to).
    func grants(userID: String) async throws -> [GrantRecord]
    /// All grants for an app.
    func grants(appID: String) async throws -> [GrantRecord]
}

/// Authorization codes from the login dialog.
package protocol AuthCodeStore: Sendable {
    func insert(_ code: AuthCodeRecord) async throws
    func find(codeHash: String) async throws -> AuthCodeRecord?
    /// Marks the code used if it was not yet; returns false if it had already been used.
    /// Atomic: of two concurrent calls exactly one returns true.
    func consume(id: String, at: Date) async throws -> Bool
    /// Ends every unused, unexpired code of one person at `at` (a password change): a code issued under the old
    /// password would otherwise mint a token dated after the change.
    func expireAll(userID: String, at: Date) async throws
}

/// Access tokens, stored by hash.
package protocol TokenStore: Sendable {
    func insert(_ token: TokenRecord) async throws
    func find(tokenHash: String) async throws -> TokenRecord?
    func setExpiry(id: String, expiresAt: Date?) async throws
    /// The revocations return the tokens they revoked (not those already revoked), so the `token.revoked` events
    /// name only tokens whose state really changed.
    @discardableResult
    func revoke(id: String, at: Date) async throws -> [TokenRecord]
    /// Revokes every live token of one person for one app (app removal).
    @discardableResult
    func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord]
    /// Revokes every token of a person (password change, account deletion).
    @discardableResult
    func revokeAll(userID: String, at: Date) async throws -> [TokenRecord]
    /// Revokes every token minted from one authorization code (code replay).
    @discardableResult
    func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord]
    /// Live (unrevoked, unexpired at `now`) tokens, newest first; filters are optional.
    func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord]
}

/// Logged-in browsers.
package protocol BrowserSessionStore: Sendable {
    func insert(_ session: BrowserSessionRecord) async throws
    func find(secretHash: String) async throws -> BrowserSessionRecord?
    func markAuthenticated(id: String, at: Date) async throws
    func delete(id: String) async throws
    func deleteAll(userID: String) async throws
}

/// id_token signing keys.
package protocol SigningKeyStore: Sendable {
    func insert(_ key: SigningKeyRecord) async throws
    /// Every key, oldest first.
    func all() async throws -> [SigningKeyRecord]
    /// Marks a key retired at `at`, still published until `publishUntil`.
    func retire(kid: String, at: Date, publishUntil: Date) async throws
}

/// Storage failures the rest of the server understands.
package enum StorageError: Error, Equatable, Sendable {
    case notFound
    /// A uniqueness rule was broken (e.g. an email already in use).
    case conflict(String)
    /// The database could not be reached or answered with an error.
    case unavailable(String)
}

/// Every store the server needs, over one database.
package struct Storage: Sendable {
    package var apps: any AppStore
    package var users: any UserStore
    package var friendships: any FriendshipStore
    package var grants: any GrantStore
    package var codes: any AuthCodeStore
    package var tokens: any TokenStore
    package var sessions: any BrowserSessionStore
    package var signingKeys: any SigningKeyStore
    /// Console administrators (production mode).
    package var admins: any AdminStore
    /// Shared rate-limit counters.
    package var rateLimits: any RateLimitStore
    /// Device-login codes (issue 7).
    package var deviceCodes: any DeviceCodeStore
    /// Remote token cache slots (issue 7).
    package var tokenCache: any TokenCacheStore
    /// Server key material such as the token cache's master key (issue 7).
    package var serverKeys: any ServerKeyStore
    /// The outbox of deauthorize and data-deletion callbacks (issue 7).
    package var appCallbacks: any AppCallbackStore
    package var emulator: any EmulatorStore
    /// Timeline posts (`/me/feed`, the feed dialog).
    package var posts: any PostStore
    /// App requests (the requests dialog, `/me/apprequests`).
    package var requests: any AppRequestStore
    /// The node's resolved callers by token hash (nil: none). The app, user, grant, token and emulator stores
    /// above invalidate it on every write that could change what a caller sees.
    package var callerCache: CallerCache?
    /// Reads a token with its app, person, grant and scoped id in one statement (every Graph call's cache miss).
    package var callerRecords: any CallerRecordStore
    /// Reads a browser session with its person, grant and role in one statement (the login dialog).
    package var sessionRecords: any SessionRecordStore
    /// The durable request journal (`request_journal`, migration 10); nil where the backend has none.
    package var journal: (any JournalStore)?
    /// The mail outbox (`mail_messages`, issue 32); nil where the backend has none.
    package var mail: (any MailOutboxStore)?
    /// Apps' Webhooks subscriptions and the outbox of their notifications (issue 42); nil where the backend has
    /// none.
    package var webhooks: (any WebhookStore)?
    /// Single-use codes sent by mail (`account_codes`, issue 32); nil where the backend has none.
    package var accountCodes: (any AccountCodeStore)?
    /// Runs several writes as one transaction (nil: each write commits by itself); see ``transaction(_:)``.
    package var writes: (any WriteTransactions)?
    /// What keeps the caches above true to other processes' and nodes' writes (nil: nothing to watch). It is
    /// not running until someone runs it; see ``CacheInvalidationFeed``.
    package var invalidationFeed: (any CacheInvalidationFeed)?
    /// People's second factors and recovery codes (issue 32; nil where the backend has none: no second factor).
    package var twoFactor: (any TwoFactorStore)?
    /// Where each browser session was last used, for the person's settings (nil: not recorded).
    package var sessionActivity: (any SessionActivityStore)?
    /// What is left of deleted accounts: their tokens' and address's hashes (issue 32; nil: not kept).
    package var deletedAccounts: (any DeletedAccountStore)?
    /// The operators' event stream (`events`, issue 42; nil: events are not kept).
    package var events: (any EventStore)?
    /// The outbox of events to HTTP sinks (`event_deliveries`, issue 42; nil: no sinks).
    package var eventDeliveries: (any EventDeliveryStore)?
    /// Closes connections; the stores must not be used afterwards. Stop the ``invalidationFeed`` first.
    package var shutdown: @Sendable () async throws -> Void
    /// Returns once the database answers a trivial query; throws `StorageError.unavailable` otherwise
    /// (`/readyz`).
    package var ping: @Sendable () async throws -> Void

    package init(
        apps: any AppStore, users: any UserStore, friendships: any FriendshipStore, grants: any GrantStore,
        codes: any AuthCodeStore, tokens: any TokenStore, sessions: any BrowserSessionStore,
        signingKeys: any SigningKeyStore, emulator: any EmulatorStore, deviceCodes: any DeviceCodeStore,
        tokenCache: any TokenCacheStore, serverKeys: any ServerKeyStore, appCallbacks: any AppCallbackStore,
        posts: any PostStore, requests: any AppRequestStore, admins: any AdminStore, rateLimits: any RateLimitStore,
        callerRecords: any CallerRecordStore, sessionRecords: any SessionRecordStore,
        shutdown: @escaping @Sendable () async throws -> Void, ping: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.ping = ping
        self.admins = admins
        self.rateLimits = rateLimits
        self.deviceCodes = deviceCodes
        self.tokenCache = tokenCache
        self.serverKeys = serverKeys
        self.appCallbacks = appCallbacks
        self.posts = posts
        self.requests = requests
        self.signingKeys = signingKeys
        self.emulator = emulator
        self.apps = apps
        self.users = users
        self.friendships = friendships
        self.grants = grants
        self.codes = codes
        self.tokens = tokens
        self.sessions = sessions
        self.callerRecords = callerRecords
        self.sessionRecords = sessionRecords
        self.shutdown = shutdown
    }
}

/// The emulator's controls: injected Graph errors and small persisted settings such as the clock offset.
package protocol EmulatorStore: Sendable {
    func insertInjection(_ injection: InjectedErrorRecord) async throws
    /// Every injection, oldest first.
    func injections() async throws -> [InjectedErrorRecord]
    /// Injections aimed at any of `targets`, oldest first.
    func injections(targets: [(InjectionTargetKind, String)]) async throws -> [InjectedErrorRecord]
    /// Uses up one failure of a counted injection, deleting it when none are left.
    /// Returns false when another caller used the last one first. Uncounted injections always return true.
    func consumeInjection(id: String) async throws -> Bool
    /// Returns false when there was no such injection.
    func deleteInjection(id: String) async throws -> Bool
    func deleteAllInjections() async throws
    func setting(_ name: String) async throws -> String?
    /// Stores a setting; nil removes it.
    func setSetting(_ name: String, _ value: String?) async throws
    /// Deletes every app, person, injection and setting (and, by cascade, everything that hangs off them), what
    /// the old state left behind (events and their deliveries, the durable journal, mail and account codes, app
    /// callbacks, Webhooks deliveries, rate-limit counters; not the audit log), and the signing keys unless
    /// `state` keeps them, then writes `state`: one transaction, so the database commits once and a reader sees
    /// the old state or the new one. Used by the resets and `import`.
    func replaceAll(with state: StoredState) async throws
    /// Writes `state` beside what is there, in one transaction (the development seed on a first start).
    func insertAll(_ state: StoredState) async throws
}

extension EmulatorStore {
    /// Deletes every app, person, key, injection and setting (and, by cascade, everything that hangs off them).
    package func eraseAll() async throws {
        var nothing = StoredState(createdAt: Date(timeIntervalSince1970: 0))
        nothing.signingKeys = []
        try await replaceAll(with: nothing)
    }
}
