import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/tokens`: user access tokens minted without a browser, listed (never the token itself) and revoked one by one
/// or all of a person's or an app's.
///
/// Each operation takes and answers the API's JSON, so `gatehouse tokens` on a local database (`--data-dir`) runs
/// exactly what the route runs, and prints the same objects as against `--server`.
package struct V1Tokens: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/tokens") { call in
                let page = try Page(call.request)
                let tokens = try await live(appID: call.query("app"), personID: call.query("person"))
                let shown = Array(tokens.dropFirst(min(page.offset, tokens.count)).prefix(page.limit))
                let grants = try await granted(to: shown)
                return AdminAPIv1.reply(page.answer(tokens) { Self.json($0, granted: grants[Self.grantKey($0)] ?? []) })
            },
            V1Route(method: .post, path: "/tokens") { call in
                AdminAPIv1.reply(try await mint(try call.body().object), status: .created)
            },
            V1Route(method: .delete, path: "/tokens/{id}") { call in
                try await revoke(id: call.parameter("id"))
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .post, path: "/tokens/revoke") { call in
                AdminAPIv1.reply(try await revokeAll(try call.body().object))
            },
        ]
    }

    /// `POST /tokens {app_id, person_id, scopes, expires_in?}`: the scopes join the person's grant (tokens read the
    /// live grant, as Facebook's do), and grant and token commit together. Answers the token with its text.
    package func mint(_ fields: JSONObject) async throws -> JSONValue {
        var body = try RequestBody(.object(fields))
        let (app, person) = try await Self.subjects(&body, services: services)
        let scopes = try body.permissions("scopes") ?? []
        let lifetime =
            try body.int("expires_in", in: 60...31_536_000).map(TimeInterval.init) ?? Lifetimes.longLivedToken
        try body.finish()
        let grant = try await Self.grant(scopes, app: app, person: person, services: services)
        let tokens = services.tokens
        let (text, record) = try await services.storage.transaction { tx in
            try await tx.grants.save(grant)
            return try await tokens.mintUserToken(
                app: app, userID: person.id, lifetime: lifetime, origin: "admin_api", into: tx.tokens)
        }
        var reply = Self.json(record, granted: grant.granted).objectValue ?? [:]
        reply["access_token"] = .string(text)
        reply["token_type"] = "bearer"
        reply["expires_in"] = .int(Int64(lifetime))
        return .object(reply)
    }

    /// `GET /tokens?app=&person=` without paging: every live token, newest first, as the list shows them.
    package func all(appID: String?, personID: String?) async throws -> [JSONValue] {
        let tokens = try await live(appID: appID, personID: personID)
        let grants = try await granted(to: tokens)
        return tokens.map { Self.json($0, granted: grants[Self.grantKey($0)] ?? []) }
    }

    /// `DELETE /tokens/{id}`: revokes one live token; Graph calls with it answer 190 from then on.
    package func revoke(id: String) async throws {
        let now = services.clock.now()
        guard try await live(appID: nil, personID: nil).contains(where: { $0.id == id }) else {
            throw Problem.notFound("there is no live token \(GraphError.echo(id))")
        }
        try await services.storage.tokens.revoke(id: id, at: now)
    }

    /// `POST /tokens/revoke {person_id?, app_id?}`: every live token of the person, of the app, or of the person for
    /// the app. Answers `{"revoked": count}`: the live tokens this call ended (one `token.revoked` each), not those
    /// it read, since another revocation may end some of them first.
    package func revokeAll(_ fields: JSONObject) async throws -> JSONValue {
        var body = try RequestBody(.object(fields))
        let appID = try body.string("app_id", max: 20), personID = try body.string("person_id", max: 20)
        try body.finish()
        guard appID != nil || personID != nil else {
            throw Problem.validation("person_id", "name a person_id, an app_id or both")
        }
        if let appID, try await services.storage.apps.find(id: appID) == nil {
            throw Problem.unknownReference("app_id", "app_id must name an existing app")
        }
        if let personID, try await services.storage.users.find(id: personID) == nil {
            throw Problem.unknownReference("person_id", "person_id must name an existing person")
        }
        let now = services.clock.now()
        let tokens = services.storage.tokens
        // Through the shared store (not a transaction's), so every node's cached callers are dropped.
        var revoked: [TokenRecord] = []
        switch (appID, personID) {
        case let (appID?, personID?): revoked = try await tokens.revokeAll(appID: appID, userID: personID, at: now)
        case let (nil, personID?): revoked = try await tokens.revokeAll(userID: personID, at: now)
        default:
            for token in try await live(appID: appID, personID: nil) {
                revoked += try await tokens.revoke(id: token.id, at: now)
            }
        }
        // A person's revocation also marks their expired tokens revoked; those had already ended.
        return ["revoked": .int(Int64(revoked.filter { !$0.hasExpired(at: now) }.count))]
    }

    private func live(appID: String?, personID: String?) async throws -> [TokenRecord] {
        try await services.storage.tokens.live(appID: appID, userID: personID, now: services.clock.now())
    }

    /// The granted permissions of each (app, person) the tokens belong to, read once per pair.
    private func granted(to tokens: [TokenRecord]) async throws -> [String: [String]] {
        var grants: [String: [String]] = [:]
        for token in tokens {
            guard let userID = token.userID, grants[Self.grantKey(token)] == nil else { continue }
            grants[Self.grantKey(token)] =
                try await services.storage.grants.find(appID: token.appID, userID: userID)?.granted ?? []
        }
        return grants
    }

    private static func grantKey(_ token: TokenRecord) -> String { token.appID + "|" + (token.userID ?? "") }

    /// The app and person a body names (`app_id`, `person_id`), both required and existing.
    static func subjects(_ body: inout RequestBody, services: GatehouseServices) async throws -> (AppRecord, UserRecord)
    {
        let appID = try body.requiredString("app_id", max: 20), personID = try body.requiredString("person_id", max: 20)
        guard let app = try await services.storage.apps.find(id: appID) else {
            throw Problem.unknownReference("app_id", "app_id must name an existing app")
        }
        guard let person = try await services.storage.users.find(id: personID) else {
            throw Problem.unknownReference("person_id", "person_id must name an existing person")
        }
        return (app, person)
    }

    /// The person's grant with `scopes` granted (and no longer declined), as a login that asked for them would leave it.
    static func grant(_ scopes: [String], app: AppRecord, person: UserRecord, services: GatehouseServices) async throws
        -> GrantRecord
    {
        let now = services.clock.now()
        var grant =
            try await services.storage.grants.find(appID: app.id, userID: person.id)
            ?? GrantRecord(
                appID: app.id, userID: person.id, granted: [], declined: [], createdAt: now, updatedAt: now,
                lastLoginAt: now)
        for scope in [Permission.publicProfile] + scopes where !grant.granted.contains(scope) {
            grant.granted.append(scope)
        }
        grant.declined.removeAll(where: scopes.contains)
        grant.updatedAt = now
        grant.lastLoginAt = now
        return grant
    }

    static func json(_ token: TokenRecord, granted: [String]) -> JSONValue {
        [
            "id": .string(token.id), "hash_prefix": .string(String(token.tokenHash.prefix(12))),
            "kind": .string(token.kind.rawValue),
            "app_id": .string(token.appID), "person_id": AdminAPIv1.optional(token.userID),
            "scopes": .array(granted.map(JSONValue.string)), "origin": AdminAPIv1.optional(token.origin),
            "issued_time": AdminAPIv1.time(token.issuedAt),
            "expires_time": token.expiresAt.map(AdminAPIv1.time) ?? .null,
            "revoked": .bool(token.revokedAt != nil),
        ]
    }
}
