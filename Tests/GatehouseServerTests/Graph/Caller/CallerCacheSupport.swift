import Foundation
import Testing
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport
import Logging

/// Services over `storage` for resolving tokens the way the Graph API does.
func callerServices(_ storage: Storage, clock: AdjustableClock) -> GatehouseServices {
    var logger = StorageBackends.logger
    logger.logLevel = .critical
    return GatehouseServices(
        configuration: GatehouseConfiguration(
            dataDirectory: FileManager.default.temporaryDirectory.path, publicURL: "http://gatehouse.test"),
        storage: storage, clock: clock, passwords: BcryptPasswordHasher(cost: 4), callbacks: RecordingNotifier(),
        logger: logger,
        clockControl: clock)
}

/// The start of most caller-cache tests, on each backend: the node's cache once it is on, services over the
/// storage on a clock fixed at `now`, and one person with tokens for one app.
func withEnabledCallerCache(
    now: Date, _ body: (Storage, CallerCache, GatehouseServices, CallerScenario) async throws -> Void
) async throws {
    try await withEachBackend { storage in
        let cache = try #require(storage.callerCache)
        try await waitUntil { cache.isEnabled }
        let services = callerServices(storage, clock: AdjustableClock(fixed: now))
        let c = try await CallerScenario.make(1, on: storage, now: now)
        try await body(storage, cache, services, c)
    }
}

extension Result where Success == Caller, Failure == GraphError {
    var user: UserCaller? { if case .success(.user(let u)) = self { u } else { nil } }
    var error: GraphError? { if case .failure(let e) = self { e } else { nil } }
    var isApp: Bool { if case .success(.app) = self { true } else { false } }
}

/// A write that must change what a cached caller sees, and how to tell that it did.
struct CallerWrite: Sendable {
    let name: String
    let write: @Sendable (Storage, CallerScenario, Date) async throws -> Void
    /// Whether the resolution (of the user token, or of the app token when `viaAppToken`) shows the write.
    let seen: @Sendable (Result<Caller, GraphError>, CallerScenario) -> Bool
    var viaAppToken = false

    /// Every kind of write that changes a resolved caller.
    static let all: [CallerWrite] = [
        CallerWrite(
            name: "token revoked", write: { s, c, now in try await s.tokens.revoke(id: c.token.id, at: now) },
            seen: { r, _ in r.error == .sessionLoggedOut }),
        CallerWrite(
            name: "token expiry moved",
            write: { s, c, now in try await s.tokens.setExpiry(id: c.token.id, expiresAt: now.addingTimeInterval(-1)) },
            seen: { r, _ in r.error?.errorSubcode == 463 }),
        CallerWrite(
            name: "app removed by the person",
            write: { s, c, now in
                try await s.grants.delete(appID: c.app.id, userID: c.user.id)
                try await s.tokens.revokeAll(appID: c.app.id, userID: c.user.id, at: now)
            },
            seen: { r, c in r.error == .appNotAuthorized(appID: c.app.id) }),
        CallerWrite(
            name: "all tokens of the person revoked",
            write: { s, c, now in try await s.tokens.revokeAll(userID: c.user.id, at: now) },
            seen: { r, _ in r.error == .sessionLoggedOut }),
        CallerWrite(
            name: "code replayed", write: { s, c, now in try await s.tokens.revokeAll(codeID: c.codeID, at: now) },
            seen: { r, _ in r.error == .sessionLoggedOut }),
        CallerWrite(
            name: "profile field",
            write: { s, c, _ in
                var user = try await s.users.find(id: c.user.id)!
                user.firstName = "Renamed"
                try await s.users.update(user)
            },
            seen: { r, _ in r.user?.user.firstName == "Renamed" }),
        CallerWrite(
            name: "picture",
            write: { s, c, _ in
                var user = try await s.users.find(id: c.user.id)!
                user.picture = Data([0x89, 0x50])
                try await s.users.update(user)
            },
            seen: { r, _ in r.user?.user.picture != nil }),
        CallerWrite(
            name: "password changed",
            write: { s, c, now in
                var user = try await s.users.find(id: c.user.id)!
                user.passwordChangedAt = now.addingTimeInterval(1)
                try await s.users.update(user)
            },
            seen: { r, _ in r.error == .passwordChanged }),
        CallerWrite(
            name: "account state checkpointed",
            write: { s, c, _ in
                var user = try await s.users.find(id: c.user.id)!
                user.accountState = .checkpointed
                try await s.users.update(user)
            },
            seen: { r, _ in r.error == .checkpointed }),
        CallerWrite(
            name: "account state disabled",
            write: { s, c, _ in
                var user = try await s.users.find(id: c.user.id)!
                user.accountState = .disabled
                try await s.users.update(user)
            },
            seen: { r, _ in r.error == .accountDisabled }),
        CallerWrite(
            name: "person deleted", write: { s, c, _ in try await s.users.delete(id: c.user.id) },
            seen: { r, _ in r.error == .invalidTokenFormat }),
        CallerWrite(
            name: "permission granted",
            write: { s, c, now in
                var grant = try await s.grants.find(appID: c.app.id, userID: c.user.id)!
                grant.granted.append("user_birthday")
                try await s.grants.save(grant)
            },
            seen: { r, _ in r.user?.grant.granted.contains("user_birthday") == true }),
        CallerWrite(
            name: "permission declined",
            write: { s, c, now in
                var grant = try await s.grants.find(appID: c.app.id, userID: c.user.id)!
                grant.granted.removeAll { $0 == "email" }
                grant.declined.append("email")
                try await s.grants.save(grant)
            },
            seen: { r, _ in r.user.map { !$0.has("email") } == true }),
        CallerWrite(
            name: "app settings",
            write: { s, c, _ in
                var app = try await s.apps.find(id: c.app.id)!
                app.name = "Renamed App"
                app.requireAppSecret = true
                try await s.apps.update(app)
            },
            seen: { r, _ in r.user?.app.name == "Renamed App" && r.user?.app.requireAppSecret == true }),
        CallerWrite(
            name: "app secret reset",
            write: { s, c, _ in
                var app = try await s.apps.find(id: c.app.id)!
                app.secret = "reset-secret"
                try await s.apps.update(app)
            },
            seen: { r, _ in r.error == GraphError.invalidAppToken }, viaAppToken: true),
        CallerWrite(
            name: "state imported (everything erased)", write: { s, _, _ in try await s.emulator.eraseAll() },
            seen: { r, _ in r.error == .invalidTokenFormat }),
        CallerWrite(
            name: "state reset to the same ids with other facts (one transaction)",
            write: { s, c, now in
                // The same app, person, grant and token as rows, in one replacement; only the name differs.
                var state = StoredState(createdAt: now)
                var user = c.user
                user.firstName = "Replaced"
                state.apps = [c.app]
                state.users = [user]
                state.grants = [try #require(try await s.grants.find(appID: c.app.id, userID: c.user.id))]
                state.scopedIDs = try await s.users.scopedIDs(userID: c.user.id).map {
                    .init(appID: $0.appID, userID: c.user.id, scopedID: $0.scopedID)
                }
                var token = c.token
                token.codeID = nil
                state.tokens = [token]
                try await s.emulator.replaceAll(with: state)
            },
            seen: { r, _ in r.user?.user.firstName == "Replaced" }),
    ]
}
