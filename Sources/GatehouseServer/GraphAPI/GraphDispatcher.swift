import GatehouseCore
import Foundation
import GatehouseProtocol

/// Routes a `GraphCall` to its endpoint. Every failure becomes a Graph error reply.
struct GraphDispatcher: Sendable {
    let services: GatehouseServices

    func dispatch(_ call: GraphCall) async -> GraphReply {
        do {
            return try await route(call)
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
        let p = call.path
        guard p.count <= 8, p.allSatisfy({ $0.utf8.count <= 128 }) else { throw GraphFailure(.unknownPath("/" + p.joined(separator: "/"))) }
        switch p.first {
        case nil:
            if call.method == .post, call.params["batch"] != nil { return try await BatchEndpoint(dispatcher: self).handle(call) }
            if call.method == .get, let ids = call.params["ids"] { return try await MultiIDEndpoint(dispatcher: self).handle(call, ids: ids) }
            throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: ""))
        case "oauth" where p.count == 2 && p[1] == "access_token":
            try await GraphRateLimits(services: services).checkTokenEndpoint(ip: call.clientIP)
            return try await TokenEndpoint(services: services).handle(call)
        case "oauth" where p.count == 2 && p[1] == "access_token_info":
            return try await TokenEndpoint(services: services).info(call)
        case "debug_token" where p.count == 1:
            return try await DebugTokenEndpoint(services: services).handle(call)
        case _ where p.count == 2 && p[1] == "token_cache":
            // Answers in the token cache's own JSON shape, credentials errors included.
            return await TokenCacheEndpoint(services: services).handle(call, appID: p[0])
        default:
            break
        }
        let caller = try await authenticate(call, forMe: p.first == "me")
        try await GraphRateLimits(services: services).check(caller)
        if let injected = try await ErrorInjector(services: services).check(caller) { throw GraphFailure(injected) }
        switch (p.first, p.count) {
        case ("fql", 1): return try await FQLEndpoint(services: services).handle(call, caller: caller)
        case ("method", 2) where p[1].lowercased() == "fql.query": return try await FQLEndpoint(services: services).handleREST(call, caller: caller)
        case ("device", 2) where p[1] == "login":
            try await GraphRateLimits(services: services).checkDeviceLogin(appID: caller.app.id, ip: call.clientIP)
            return try await DeviceEndpoints(services: services).login(call, caller: caller)
        case ("device", 2) where p[1] == "login_status": return try await DeviceEndpoints(services: services).status(call, caller: caller)
        default: break
        }
        let users = UserEndpoints(services: services)
        if p.count == 4, p[1] == "accounts", p[2] == "test-users" {
            throw GraphFailure(.unknownPath("/" + p.dropFirst().joined(separator: "/")))
        }
        if p.count == 3, p[1] == "accounts", p[2] == "test-users" {
            return try await TestUserEndpoints(services: services).handle(call, appID: p[0], caller: caller)
        }
        let target = try await resolve(p[0], caller: caller, method: call.method)
        switch (target, p.count) {
        case (.app(let app), 1):
            guard call.method == .get else { throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: p[0])) }
            return .json(.object(["name": .string(app.name), "id": .string(app.id)]))
        case (.post(let post), 1):
            let feed = FeedEndpoints(services: services)
            switch call.method {
            case .get: return try await feed.read(post, caller: caller, call: call)
            case .delete: return try await feed.delete(post, caller: caller, objectID: p[0])
            case .post: throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: p[0]))
            }
        case (.request(let request, let withRecipient), 1):
            let requests = AppRequestEndpoints(services: services)
            switch call.method {
            case .get: return try await requests.read(request, caller: caller, withRecipient: withRecipient)
            case .delete where withRecipient: return try await requests.delete(request, caller: caller, objectID: p[0])
            default: throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: p[0]))
            }
        case (.user(let user, let scoped), _):
            let node = UserNode(user: user, scopedID: scoped, appID: caller.app.id)
            switch (call.method, p.count > 1 ? p[1] : nil) {
            case (.get, nil): return try await users.read(node, caller: caller, call: call)
            case (.delete, nil): return try await TestUserEndpoints(services: services).delete(node, caller: caller)
            case (.get, "picture"): return try await users.picture(node, call: call)
            case (.get, "friends") where p.count == 2: return try await users.friends(node, caller: caller, call: call)
            case (.post, "friends") where p.count == 3: return try await users.befriend(node, other: p[2], caller: caller)
            case (.get, "permissions") where p.count <= 3: return try await users.permissions(node, caller: caller, only: p.count == 3 ? p[2] : call.param("permission"))
            case (.delete, "permissions") where p.count == 2: return try await users.removeApp(node, caller: caller)
            case (.delete, "permissions") where p.count == 3: return try await users.revoke(p[2], node, caller: caller)
            case (.post, "feed") where p.count == 2: return try await FeedEndpoints(services: services).publish(node, caller: caller, call: call)
            case (.get, "feed") where p.count == 2: return try await FeedEndpoints(services: services).timeline(node, caller: caller, call: call)
            case (.get, "apprequests") where p.count == 2: return try await AppRequestEndpoints(services: services).list(node, caller: caller)
            case (_, .some(let edge)) where ["picture", "friends", "permissions", "feed", "apprequests"].contains(edge):
                throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: p[0]))
            case (_, .some(let edge)):
                throw GraphFailure(.nonexistingField(edge, nodeType: "User"))
            default:
                throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: p[0]))
            }
        default:
            throw GraphFailure(.unknownPath("/" + p.dropFirst().joined(separator: "/")))
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
           let user = try await services.storage.users.find(id: userID) {
            return .user(user, scopedID: id)
        }
        if let social = try await resolveSocial(id, caller: caller) { return social }
        throw GraphFailure(.unsupportedRequest(method: method.rawValue, objectID: id))
    }

    /// Post and request ids. Objects the caller may not see resolve to nothing, like ids that do not exist.
    private func resolveSocial(_ id: String, caller: Caller) async throws -> Target? {
        let storage = services.storage, app = caller.app
        let parts = id.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 20 && $0.allSatisfy(\.isNumber) }) else { return nil }
        let requests = AppRequestEndpoints(services: services)
        if parts.count == 2 {
            if let post = try await storage.posts.find(id: parts[1]),
               try await storage.users.scopedID(appID: app.id, userID: post.authorID) == parts[0],
               try await FeedEndpoints(services: services).canRead(post, caller: caller) {
                return .post(post)
            }
            if let recipient = try await storage.users.userID(appID: app.id, scopedID: parts[1]),
               let request = try await storage.requests.find(requestID: parts[0], recipientID: recipient),
               requests.canRead(request, caller: caller) {
                return .request(request, withRecipient: true)
            }
            return nil
        }
        let copies = try await storage.requests.recipients(requestID: id)
        if case .user(let u) = caller, let own = copies.first(where: { $0.recipientID == u.user.id && $0.appID == app.id }) {
            return .request(own, withRecipient: true)
        }
        if let first = copies.first, requests.canRead(first, caller: caller) { return .request(first, withRecipient: false) }
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
