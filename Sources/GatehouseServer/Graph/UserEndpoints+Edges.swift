import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

extension UserEndpoints {
    // MARK: friends

    func friends(_ node: UserNode, caller: Caller, call: GraphCall) async throws -> GraphReply {
        guard Self.isSelfOrApp(node, caller) else { throw GraphFailure(.missingPermission(Permission.userFriends)) }
        guard try await readable(node, caller: caller).contains(Permission.userFriends) else {
            throw GraphFailure(.missingPermission(Permission.userFriends))
        }
        var subfields: [FieldSelection]?
        if let raw = call.param("fields") {
            do { subfields = try FieldSelectionParser.parse(raw) } catch {
                throw GraphFailure(.invalidParameter(Self.describe(error)))
            }
        }
        let page = try await friendsPage(
            node, caller: caller, limit: call.param("limit"), after: call.param("after"), subfields: subfields,
            call: call)
        return .json(.object(page))
    }

    /// One page of friends who also use the app, with Facebook's cursors and total count.
    func friendsPage(
        _ node: UserNode, caller: Caller, limit rawLimit: String?, after: String?, subfields: [FieldSelection]?,
        call: GraphCall
    ) async throws -> JSONObject {
        let storage = services.storage
        let all = try await storage.friendships.friends(of: node.user.id)
        var users: [UserNode] = []
        for id in all {
            guard try await storage.grants.find(appID: node.appID, userID: id) != nil,
                let friend = try await storage.users.find(id: id)
            else { continue }
            users.append(
                UserNode(
                    user: friend, scopedID: try await storage.users.scopedID(appID: node.appID, userID: id),
                    appID: node.appID))
        }
        let limit = min(max(Int(rawLimit ?? "") ?? 25, 1), 5000)
        var start = 0
        if let after {
            guard let offset = Self.offset(fromCursor: after) else {
                throw GraphFailure(.invalidParameter("Invalid after cursor"))
            }
            start = offset + 1
        }
        let slice = start < users.count ? Array(users[start..<min(start + limit, users.count)]) : []
        let fields =
            subfields ?? [
                FieldSelection(name: "name", modifiers: [], subfields: nil),
                FieldSelection(name: "id", modifiers: [], subfields: nil),
            ]
        var data: [JSONValue] = []
        for friend in slice {
            let friendFields = fields.filter { $0.name != "friends" && $0.name != "permissions" }
            data.append(.object(try await render(friend, fields: friendFields, caller: caller, call: call)))
        }
        var page = JSONObject([("data", .array(data))])
        var paging = JSONObject([])
        if !slice.isEmpty {
            paging["cursors"] = .object([
                "before": .string(Self.cursor(start)), "after": .string(Self.cursor(start + slice.count - 1)),
            ])
            if start > 0 {
                paging["previous"] = .string(
                    pagingURL(node, call: call, limit: limit, key: "before", cursor: Self.cursor(start)))
            }
            if start + slice.count < users.count {
                paging["next"] = .string(
                    pagingURL(
                        node, call: call, limit: limit, key: "after", cursor: Self.cursor(start + slice.count - 1)))
            }
        }
        page["paging"] = .object(paging)
        page["summary"] = ["total_count": .int(Int64(all.count))]
        return page
    }

    /// A paging link that keeps `access_token` (facebook-sdk's `get_all_connections` needs it).
    func pagingURL(_ node: UserNode, call: GraphCall, limit: Int, key: String, cursor: String) -> String {
        var params: [(String, String)] = []
        if let token = call.accessToken { params.append(("access_token", token)) }
        if let fields = call.param("fields") { params.append(("fields", fields)) }
        params.append(("limit", String(limit)))
        params.append((key, cursor))
        return "\(services.configuration.baseURL)/\(call.version)/\(node.scopedID)/friends?"
            + FormEncoding.encode(params)
    }

    static func cursor(_ offset: Int) -> String { Base64URL.encode(Array("o:\(offset)".utf8)) }

    static func offset(fromCursor cursor: String) -> Int? {
        guard let data = Base64URL.decode(cursor), let text = String(data: data, encoding: .utf8), text.hasPrefix("o:")
        else { return nil }
        return Int(text.dropFirst(2)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `POST /{u1}/friends/{u2}`: test-user friending, as Facebook allows it. With u1's token it is a friend
    /// request, and u2's request back (`POST /{u2}/friends/{u1}` with u2's token) confirms it: the two are
    /// friends from then on. The app's token connects them at once.
    ///
    /// Friendships are global across apps (they decide friends-audience posts, `/me/friends`, FQL `friend`,
    /// the id_token's `user_friends`), so a caller may only connect two **test users of its own app**, and
    /// only with that app's token or u1's token for that app. Anything else would let one token befriend a
    /// real person and then read their friends-only posts.
    func befriend(_ node: UserNode, other: String, caller: Caller) async throws -> GraphReply {
        let appID = caller.app.id
        let byApp: Bool
        switch caller {
        case .app(let app) where app.id == node.appID: byApp = true
        case .user(let u) where u.user.id == node.user.id && u.app.id == node.appID: byApp = false
        default: throw GraphFailure(.missingPermission(Permission.userFriends))
        }
        guard let otherID = try await services.storage.users.userID(appID: node.appID, scopedID: other),
            let otherUser = try await services.storage.users.find(id: otherID)
        else {
            throw GraphFailure(.unsupportedRequest(method: "post", objectID: other))
        }
        guard try await TestUserEndpoints.holds(appID, node.user, services: services),
            try await TestUserEndpoints.holds(appID, otherUser, services: services)
        else {
            throw GraphFailure(.notTestUsers)
        }
        guard otherID != node.user.id else {
            throw GraphFailure(.invalidParameter("A user cannot befriend themselves"))
        }
        let friendships = services.storage.friendships, now = services.clock.now()
        if byApp {
            try await friendships.befriend(node.user.id, otherID, at: now)
        } else if try await !friendships.areFriends(node.user.id, otherID) {
            _ = try await friendships.request(from: node.user.id, to: otherID, at: now)
        }
        return .success
    }

    // MARK: permissions

    func permissions(_ node: UserNode, caller: Caller, only: String?) async throws -> GraphReply {
        guard Self.isSelfOrApp(node, caller) else {
            throw GraphFailure(.unsupportedRequest(method: "get", objectID: node.scopedID))
        }
        return .json(["data": .array(try await permissionList(node, only: only))])
    }

    /// `[{permission, status}]` with `expired` once data access has lapsed.
    func permissionList(_ node: UserNode, only: String?) async throws -> [JSONValue] {
        guard let grant = try await services.storage.grants.find(appID: node.appID, userID: node.user.id) else {
            return []
        }
        let expired = grant.isDataAccessExpired(at: services.clock.now())
        var list: [JSONValue] = []
        for p in grant.granted where only == nil || only == p {
            let status = expired && p != Permission.publicProfile ? "expired" : "granted"
            list.append(["permission": .string(p), "status": .string(status)])
        }
        for p in grant.declined where only == nil || only == p {
            list.append(["permission": .string(p), "status": "declined"])
        }
        return list
    }

    /// `DELETE /{user}/permissions/{name}`: the permission becomes declined.
    func revoke(_ permission: String, _ node: UserNode, caller: Caller) async throws -> GraphReply {
        guard Self.isSelfOrApp(node, caller) else {
            throw GraphFailure(.unsupportedRequest(method: "delete", objectID: node.scopedID))
        }
        if permission == Permission.publicProfile { return try await removeApp(node, caller: caller) }
        guard try await AppRemoval(services: services).revoke(permission, appID: node.appID, userID: node.user.id)
        else {
            throw GraphFailure(.appNotAuthorized(appID: node.appID))
        }
        return .success
    }

    /// `DELETE /{user}/permissions`: removes the app; every token of that person for it dies at once.
    func removeApp(_ node: UserNode, caller: Caller) async throws -> GraphReply {
        guard Self.isSelfOrApp(node, caller) else {
            throw GraphFailure(.unsupportedRequest(method: "delete", objectID: node.scopedID))
        }
        try await AppRemoval(services: services).remove(
            appID: node.appID, userID: node.user.id, scopedID: node.scopedID)
        return .success
    }
}

/// Removing an app (or one permission) from a person's account, shared by the Graph API and the settings page.
struct AppRemoval: Sendable {
    let services: GatehouseServices

    func remove(appID: String, userID: String, scopedID: String) async throws {
        let storage = services.storage
        let now = services.clock.now()
        try await storage.grants.delete(appID: appID, userID: userID)
        try await storage.tokens.revokeAll(appID: appID, userID: userID, at: now)
        services.logger.info("app removed", metadata: ["app": "\(appID)"])
        if let app = try await storage.apps.find(id: appID) {
            await services.callbacks.appRemoved(app: app, scopedUserID: scopedID, at: now)
        }
    }

    /// Moves one permission from granted to declined. False when the person has not authorized the app.
    func revoke(_ permission: String, appID: String, userID: String) async throws -> Bool {
        guard var grant = try await services.storage.grants.find(appID: appID, userID: userID) else { return false }
        if grant.granted.contains(permission) {
            grant.granted.removeAll { $0 == permission }
            if !grant.declined.contains(permission) { grant.declined.append(permission) }
            grant.updatedAt = services.clock.now()
            try await services.storage.grants.save(grant)
        }
        return true
    }
}
