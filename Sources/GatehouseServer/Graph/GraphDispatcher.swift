import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// Routes a `GraphCall` to its endpoint. Every failure becomes a Graph error reply.
package struct GraphDispatcher: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    package func dispatch(_ call: GraphCall) async -> GraphReply {
        do {
            return GraphReply.answered(try await route(call), at: call.version)
        } catch let failure as GraphFailure {
            return .error(failure.error)
        } catch StorageError.unavailable(let message) {
            services.logger.error("database unavailable", metadata: ["error": "\(message)"])
            return .error(.temporarilyUnavailable)
        } catch let error as StorageError {
            services.logger.error("storage failure", metadata: ["error": "\(error)"])
            return .error(.serviceUnavailable)
        } catch {
            services.logger.error("graph handler failed", metadata: ["error": "\(type(of: error))"])
            return .error(.unknownError)
        }
    }

    private func route(_ call: GraphCall) async throws -> GraphReply {
        let route = GraphRoute.parse(
            method: call.method, path: call.path, batch: call.params["batch"] != nil, ids: call.params["ids"],
            type: call.params["type"])
        if route.isPublic { return try await answerPublic(route, call) }
        let caller = try await authenticate(call, forMe: call.path.first == "me")
        try await GraphRateLimits(services: services).check(caller)
        if let injected = try await ErrorInjector(services: services).check(caller) { throw GraphFailure(injected) }
        do {
            return try await answer(route, call, caller: caller)
        } catch let failure as GraphFailure where failure.error.code == 200 {
            // Which permission, and whether the person declined it: only the journal wants to know.
            if let note = JournalNote.current, case .user(let user) = caller {
                note.explain(Self.permissionReason(failure.error, user))
            }
            throw failure
        }
    }

    /// "email was declined by Alice at 09:58", or never granted, or data access expired.
    static func permissionReason(_ error: GraphError, _ user: UserCaller) -> String {
        guard let range = error.message.range(of: "Requires extended permission: ") else {
            return JournalExplanation.of(error)
        }
        return permissionReason(String(error.message[range.upperBound...]), user)
    }

    static func permissionReason(_ permission: String, _ user: UserCaller) -> String {
        if user.grant.declined.contains(permission) {
            return JournalExplanation.permissionDeclined(permission, by: user.user.fullName, at: user.grant.updatedAt)
        }
        if user.isDataAccessExpired, user.grant.granted.contains(permission) {
            return
                "\(user.user.fullName)'s data access for \(user.app.name) expired at "
                + "\(JournalExplanation.clockTime(user.dataAccessExpiresAt)) (90 days after the last login); \(permission) needs a new login"
        }
        return JournalExplanation.permissionNotGranted(permission, by: user.user.fullName)
    }

    /// A read of `/me?fields=…` leaves out fields whose permission the token lacks, as Facebook does; the journal
    /// notes why (no error: the call succeeds).
    static func noteOmittedFields(_ raw: String, _ user: UserCaller, on note: JournalNote) {
        // On the UTF-8 bytes: this runs on every journaled /me, and Foundation's trimming bridges each field
        // name to NSString.
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var seen: [String] = []
        for piece in raw.utf8.split(separator: UInt8(ascii: ",")) {
            let head = piece.prefix { $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "(") }
            guard let first = head.firstIndex(where: { !isSpace($0) }),
                let last = head.lastIndex(where: { !isSpace($0) })
            else { continue }
            let name = String(decoding: head[first...last], as: UTF8.self)
            guard let needed = UserFields.rules[name], !user.has(needed), !seen.contains(needed) else { continue }
            seen.append(needed)
            note.explain(permissionReason(needed, user) + ", so \(name) was left out")
        }
    }

    /// The routes answered before the token is checked.
    private func answerPublic(_ route: GraphRoute, _ call: GraphCall) async throws -> GraphReply {
        switch route {
        case .batch: return try await BatchEndpoint(dispatcher: self).handle(call)
        case .multipleIDs(let ids): return try await MultiIDEndpoint(dispatcher: self).handle(call, ids: ids)
        case .rootUnsupported(let method):
            throw GraphFailure(.unsupportedRequest(method: method.rawValue, objectID: ""))
        case .tooLong: throw GraphFailure(.unknownPath("/" + call.path.joined(separator: "/")))
        case .accessToken:
            try await GraphRateLimits(services: services).checkTokenEndpoint(ip: call.clientIP)
            return try await TokenEndpoint(services: services).handle(call)
        case .accessTokenInfo: return try await TokenEndpoint(services: services).info(call)
        case .debugToken: return try await DebugTokenEndpoint(services: services).handle(call)
        // Answers in the token cache's own JSON shape, credentials errors included.
        case .tokenCache(let appID): return await TokenCacheEndpoint(services: services).handle(call, appID: appID)
        case .fql, .fqlREST, .deviceLogin, .deviceLoginStatus, .testUsers, .testUsersUnknown, .appSubscriptions,
            .object:
            preconditionFailure("\(route) needs a caller")
        }
    }

    /// The routes answered for an authenticated caller.
    private func answer(_ route: GraphRoute, _ call: GraphCall, caller: Caller) async throws -> GraphReply {
        switch route {
        case .fql: return try await FQLEndpoint(services: services).handle(call, caller: caller)
        case .fqlREST: return try await FQLEndpoint(services: services).handleREST(call, caller: caller)
        case .deviceLogin:
            try await GraphRateLimits(services: services).checkDeviceLogin(appID: caller.app.id, ip: call.clientIP)
            return try await DeviceEndpoints(services: services).login(call, caller: caller)
        case .deviceLoginStatus: return try await DeviceEndpoints(services: services).status(call, caller: caller)
        case .testUsers(let appID):
            return try await TestUserEndpoints(services: services).handle(call, appID: appID, caller: caller)
        case .testUsersUnknown: throw GraphFailure(.unknownPath("/" + call.path.dropFirst().joined(separator: "/")))
        case .appSubscriptions(let appID):
            return try await AppSubscriptionEndpoints(services: services).handle(call, appID: appID, caller: caller)
        case .object(let id, let rest): return try await answerObject(id, rest: rest, call, caller: caller)
        case .batch, .multipleIDs, .rootUnsupported, .tooLong, .accessToken, .accessTokenInfo, .debugToken, .tokenCache:
            preconditionFailure("\(route) is answered before authentication")
        }
    }

    /// `/{id}[/…]`: what the id names decides what the rest of the path may be.
    private func answerObject(_ id: String, rest: [String], _ call: GraphCall, caller: Caller) async throws
        -> GraphReply
    {
        // Built only when thrown: `/me` passes through here on every call.
        var unsupported: GraphFailure { GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: id)) }
        switch (try await resolve(id, caller: caller, method: call.method), rest.isEmpty) {
        case (.app(let app), true):
            guard call.method == .get else { throw unsupported }
            return .json(.object(["name": .string(app.name), "id": .string(app.id)]))
        case (.post(let post), true):
            let feed = FeedEndpoints(services: services)
            switch call.method {
            case .get: return try await feed.read(post, caller: caller, call: call)
            case .delete: return try await feed.delete(post, caller: caller, objectID: id)
            case .post: throw unsupported
            }
        case (.request(let request, let withRecipient), true):
            let requests = AppRequestEndpoints(services: services)
            switch call.method {
            case .get: return try await requests.read(request, caller: caller, withRecipient: withRecipient)
            case .delete where withRecipient: return try await requests.delete(request, caller: caller, objectID: id)
            default: throw unsupported
            }
        case (.user(let user, let scoped), _):
            let node = UserNode(user: user, scopedID: scoped, appID: caller.app.id)
            return try await answerUser(
                node,
                UserNodeRoute.parse(method: call.method, rest: rest, permissionParameter: call.param("permission")),
                call, caller: caller)
        default:
            throw GraphFailure(.unknownPath("/" + rest.joined(separator: "/")))
        }
    }

    private func answerUser(_ node: UserNode, _ route: UserNodeRoute, _ call: GraphCall, caller: Caller) async throws
        -> GraphReply
    {
        let users = UserEndpoints(services: services)
        switch route {
        case .read:
            let reply = try await users.read(node, caller: caller, call: call)
            if let note = JournalNote.current, case .user(let user) = caller, user.user.id == node.user.id,
                let fields = call.params["fields"]
            {
                Self.noteOmittedFields(fields, user, on: note)
            }
            return reply
        case .deleteTestUser: return try await TestUserEndpoints(services: services).delete(node, caller: caller)
        case .updateTestUser:
            return try await TestUserEndpoints(services: services).update(node, call: call, caller: caller)
        case .picture: return try await users.picture(node, call: call)
        case .friends: return try await users.friends(node, caller: caller, call: call)
        case .befriend(let other): return try await users.befriend(node, other: other, caller: caller)
        case .permissions(let only): return try await users.permissions(node, caller: caller, only: only)
        case .removeApp: return try await users.removeApp(node, caller: caller)
        case .revoke(let permission): return try await users.revoke(permission, node, caller: caller)
        case .publish: return try await FeedEndpoints(services: services).publish(node, caller: caller, call: call)
        case .timeline: return try await FeedEndpoints(services: services).timeline(node, caller: caller, call: call)
        case .appRequests: return try await AppRequestEndpoints(services: services).list(node, caller: caller)
        case .unsupported: throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: call.path[0]))
        case .nonexistingField(let edge): throw GraphFailure(.nonexistingField(edge, nodeType: "User"))
        }
    }

    /// A Graph object addressed by a path's first segment.
    enum Target {
        case user(UserRecord, scopedID: String)
        case app(AppRecord)
        /// A post the caller may see, addressed as `{author}_{post}`.
        case post(PostRecord)
        /// An app request the caller may see: one recipient's copy (`{request}_{recipient}`, or the caller's own
        /// copy of a bare `{request}`), or the whole request for its sender or app (`withRecipient` false).
        case request(AppRequestRecord, withRecipient: Bool)
    }

    func resolve(_ id: String, caller: Caller, method: GraphCall.Method) async throws -> Target {
        if id == "me" {
            guard case .user(let u) = caller else { throw GraphFailure(.activeTokenRequired) }
            return .user(u.user, scopedID: u.scopedID)
        }
        let app = caller.app
        if id == app.id { return .app(app) }
        if id.count <= 20, id.allSatisfy(\.isNumber),
            let userID = try await services.storage.users.userID(appID: app.id, scopedID: id),
            let user = try await services.storage.users.find(id: userID)
        {
            return .user(user, scopedID: id)
        }
        if let social = try await resolveSocial(id, caller: caller) { return social }
        throw GraphFailure(.unsupportedRequest(method: method.rawValue, objectID: id))
    }

    /// Post and request ids. Objects the caller may not see resolve to nothing, like ids that do not exist.
    private func resolveSocial(_ id: String, caller: Caller) async throws -> Target? {
        let storage = services.storage, app = caller.app
        let parts = id.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 20 && $0.allSatisfy(\.isNumber) })
        else { return nil }
        let requests = AppRequestEndpoints(services: services)
        if parts.count == 2 {
            if let post = try await storage.posts.find(id: parts[1]),
                try await storage.users.scopedID(appID: app.id, userID: post.authorID) == parts[0],
                try await FeedEndpoints(services: services).canRead(post, caller: caller)
            {
                return .post(post)
            }
            if let recipient = try await storage.users.userID(appID: app.id, scopedID: parts[1]),
                let request = try await storage.requests.find(requestID: parts[0], recipientID: recipient),
                requests.canRead(request, caller: caller)
            {
                return .request(request, withRecipient: true)
            }
            return nil
        }
        let copies = try await storage.requests.recipients(requestID: id)
        if case .user(let u) = caller,
            let own = copies.first(where: { $0.recipientID == u.user.id && $0.appID == app.id })
        {
            return .request(own, withRecipient: true)
        }
        if let first = copies.first, requests.canRead(first, caller: caller) {
            return .request(first, withRecipient: false)
        }
        return nil
    }

    /// Checks the call's token and `appsecret_proof`.
    func authenticate(_ call: GraphCall, forMe: Bool) async throws -> Caller {
        guard let token = call.accessToken else {
            throw GraphFailure(forMe ? .activeTokenRequired : .tokenRequired)
        }
        let caller: Caller
        switch try await services.tokens.resolve(token) {
        case .failure(let error): throw GraphFailure(error)
        case .success(let c): caller = c
        }
        JournalNote.current?.identify(caller)
        if case .user(let user) = caller {
            if let proof = call.params["appsecret_proof"] {
                guard AppSecretProof.matches(proof, accessToken: token, appSecret: user.app.secret) else {
                    throw GraphFailure(.appsecretProofInvalid)
                }
            } else if user.app.requireAppSecret {
                throw GraphFailure(.appsecretProofRequired)
            }
        }
        return caller
    }
}
