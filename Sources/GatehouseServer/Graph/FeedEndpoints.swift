import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// `POST /{user}/feed`, `GET /{user}/feed`, `GET|DELETE /{post-id}`.
///
/// Who reads what: the author always sees the posts the calling app published; with `user_posts` they see all
/// their posts. Anyone else needs `user_posts` too, and then sees a post when its audience allows it:
/// `everyone`, or `friends` for the author's friends; `only_me` never. Unseen posts answer Facebook's
/// "does not exist" error (100/33), so ids cannot be probed.
struct FeedEndpoints: Sendable {
    let services: GatehouseServices

    /// The post fields a request may select.
    static let fields: Set<String> = [
        "id", "message", "link", "name", "caption", "description", "picture", "created_time", "from", "privacy",
        "application",
    ]
    static let defaultFields = ["created_time", "message", "id"]
    static let maxMessage = 63_206

    // MARK: Publishing

    func publish(_ node: UserNode, caller: Caller, call: GraphCall) async throws -> GraphReply {
        let grant: GrantRecord?
        switch caller {
        case .user(let u):
            guard u.user.id == node.user.id else { throw GraphFailure(.feedToOtherUsersDisabled) }
            guard u.has(Permission.publishActions) else {
                throw GraphFailure(.missingPermission(Permission.publishActions))
            }
            grant = u.grant
        case .app(let app):
            // A server may post for a person who granted publish_actions, with its app token.
            let g = try await services.storage.grants.find(appID: app.id, userID: node.user.id)
            let live = g.map { !$0.isDataAccessExpired(at: services.clock.now()) } ?? false
            guard let g, live, g.granted.contains(Permission.publishActions) else {
                throw GraphFailure(.missingPermission(Permission.publishActions))
            }
            grant = g
        case .client:
            throw GraphFailure(.missingPermission(Permission.publishActions))
        }
        let cap = grant?.defaultAudience ?? .friends
        var audience = cap
        if let raw = call.param("privacy") {
            guard let asked = Self.parsePrivacy(raw) else {
                throw GraphFailure(
                    .invalidParameter("privacy must be a JSON object whose value is EVERYONE, ALL_FRIENDS or SELF"))
            }
            audience = asked.narrowed(to: cap)
        }
        let post = try Self.validate(
            PostContent(
                message: call.param("message"), link: call.param("link"), name: call.param("name"),
                caption: call.param("caption"), description: call.param("description"), picture: call.param("picture")))
        let record = PostRecord(
            id: services.random.numericID(digits: 16), appID: caller.app.id, authorID: node.user.id,
            message: post.message,
            link: post.link, name: post.name, caption: post.caption, description: post.description,
            picture: post.picture,
            audience: audience, createdAt: services.clock.now())
        try await services.storage.posts.insert(record)
        services.logger.info(
            "post published", metadata: ["app": "\(caller.app.id)", "audience": "\(audience.rawValue)"])
        return .json(["id": .string("\(node.scopedID)_\(record.id)")])
    }

    /// What a post carries, from the Graph call or the feed dialog.
    struct PostContent: Sendable, Equatable {
        var message, link, name, caption, description, picture: String?
    }

    /// Facebook's rules: a message or a link; http(s) URLs; bounded lengths. Throws the Graph error.
    static func validate(_ content: PostContent) throws -> PostContent {
        var c = content
        func trimmed(_ s: String?) -> String? {
            guard let t = s?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
            return t
        }
        c.message = trimmed(c.message)
        c.link = trimmed(c.link)
        c.picture = trimmed(c.picture)
        guard c.message != nil || c.link != nil else {
            throw GraphFailure(.invalidParameter("Missing message or attachment"))
        }
        if let m = c.message, m.count > maxMessage {
            throw GraphFailure(.invalidParameter("Message is too long (\(maxMessage) characters at most)"))
        }
        if let link = c.link, !WebURL.isWebURL(link) {
            throw GraphFailure(.invalidParameter("link URL is not properly formatted"))
        }
        if let picture = c.picture, !WebURL.isWebURL(picture) {
            throw GraphFailure(.invalidParameter("picture URL is not properly formatted"))
        }
        for (name, value) in [("name", c.name), ("caption", c.caption), ("description", c.description)]
        where (value?.count ?? 0) > 1000 {
            throw GraphFailure(.invalidParameter("\(name) is too long (1000 characters at most)"))
        }
        return c
    }

    /// `{"value":"SELF"}` as Graph takes it.
    static func parsePrivacy(_ raw: String) -> Audience? {
        guard let json = try? JSONValue.parse(Data(raw.utf8)), let value = json["value"]?.stringValue else {
            return nil
        }
        return Audience(privacyValue: value)
    }

    // MARK: Reading

    /// Whether `caller` may see `post` (see the type's comment).
    func canRead(_ post: PostRecord, caller: Caller) async throws -> Bool {
        switch caller {
        case .app(let app): return post.appID == app.id
        case .client: return false
        case .user(let u):
            if u.user.id == post.authorID { return post.appID == u.app.id || u.has(Permission.userPosts) }
            guard u.has(Permission.userPosts) else { return false }
            switch post.audience {
            case .onlyMe: return false
            case .everyone: return true
            case .friends: return try await services.storage.friendships.areFriends(u.user.id, post.authorID)
            }
        }
    }

    func read(_ post: PostRecord, caller: Caller, call: GraphCall) async throws -> GraphReply {
        let fields = try Self.selectedFields(call)
        return .json(.object(try await render(post, fields: fields, appID: caller.app.id)))
    }

    /// `GET /{user}/feed`: the posts on that timeline the caller may see, newest first, 25 a page.
    func timeline(_ node: UserNode, caller: Caller, call: GraphCall) async throws -> GraphReply {
        if case .user(let u) = caller, u.user.id != node.user.id, !u.has(Permission.userPosts) {
            throw GraphFailure(.missingPermission(Permission.userPosts))
        }
        let fields = try Self.selectedFields(call)
        var visible: [PostRecord] = []
        for post in try await services.storage.posts.posts(authorID: node.user.id, limit: 1000, offset: 0) {
            if try await canRead(post, caller: caller) { visible.append(post) }
        }
        let limit = min(max(Int(call.param("limit") ?? "") ?? 25, 1), 100)
        var start = 0
        if let after = call.param("after") {
            guard let offset = UserEndpoints.offset(fromCursor: after) else {
                throw GraphFailure(.invalidParameter("Invalid after cursor"))
            }
            start = offset + 1
        }
        let slice = start < visible.count ? Array(visible[start..<min(start + limit, visible.count)]) : []
        var data: [JSONValue] = []
        for post in slice { data.append(.object(try await render(post, fields: fields, appID: caller.app.id))) }
        var page = JSONObject([("data", .array(data))])
        guard !slice.isEmpty else { return .json(.object(page)) }
        var paging = JSONObject([])
        do {
            paging["cursors"] = .object([
                "before": .string(UserEndpoints.cursor(start)),
                "after": .string(UserEndpoints.cursor(start + slice.count - 1)),
            ])
            if start + slice.count < visible.count {
                var params: [(String, String)] = []
                if let token = call.accessToken { params.append(("access_token", token)) }
                if let f = call.param("fields") { params.append(("fields", f)) }
                params.append(("limit", String(limit)))
                params.append(("after", UserEndpoints.cursor(start + slice.count - 1)))
                paging["next"] = .string(
                    "\(services.configuration.baseURL)/\(call.version)/\(node.scopedID)/feed?"
                        + FormEncoding.encode(params))
            }
        }
        page["paging"] = .object(paging)
        return .json(.object(page))
    }

    static func selectedFields(_ call: GraphCall) throws -> [FieldSelection] {
        guard let raw = call.param("fields") else {
            return defaultFields.map { FieldSelection(name: $0, modifiers: [], subfields: nil) }
        }
        let parsed: [FieldSelection]
        do { parsed = try FieldSelectionParser.parse(raw) } catch {
            throw GraphFailure(.invalidParameter(UserEndpoints.describe(error)))
        }
        for f in parsed where !fields.contains(f.name) {
            throw GraphFailure(.nonexistingField(f.name, nodeType: "Post"))
        }
        return parsed
    }

    /// One post as the calling app sees it; absent values are left out, as Facebook does.
    func render(_ post: PostRecord, fields: [FieldSelection], appID: String) async throws -> JSONObject {
        let storage = services.storage
        let authorScoped = try await storage.users.scopedID(appID: appID, userID: post.authorID)
        var out = JSONObject([])
        for selection in fields {
            switch selection.name {
            case "id": out["id"] = .string("\(authorScoped)_\(post.id)")
            case "created_time": out["created_time"] = .string(GraphTime.format(post.createdAt))
            case "message": if let v = post.message { out["message"] = .string(v) }
            case "link": if let v = post.link { out["link"] = .string(v) }
            case "name": if let v = post.name { out["name"] = .string(v) }
            case "caption": if let v = post.caption { out["caption"] = .string(v) }
            case "description": if let v = post.description { out["description"] = .string(v) }
            case "picture": if let v = post.picture { out["picture"] = .string(v) }
            case "from":
                let name = try await storage.users.find(id: post.authorID)?.fullName ?? ""
                out["from"] = .object(
                    UserEndpoints.select(["name": .string(name), "id": .string(authorScoped)], selection.subfields))
            case "privacy":
                out["privacy"] = .object(UserEndpoints.select(Self.privacy(post.audience), selection.subfields))
            case "application":
                if let app = try await storage.apps.find(id: post.appID) {
                    out["application"] = .object(
                        UserEndpoints.select(["name": .string(app.name), "id": .string(app.id)], selection.subfields))
                }
            default: break
            }
        }
        return out
    }

    /// Graph's post `privacy` object.
    static func privacy(_ audience: Audience) -> JSONObject {
        let description =
            switch audience {
            case .onlyMe: "Only me"
            case .friends: "Your friends"
            case .everyone: "Public"
            }
        return [
            "value": .string(audience.privacyValue), "description": .string(description), "friends": "", "allow": "",
            "deny": "",
        ]
    }

    // MARK: Deleting

    /// Only the app that published a post may delete it, with the author's `publish_actions` token or its app token.
    func delete(_ post: PostRecord, caller: Caller, objectID: String) async throws -> GraphReply {
        switch caller {
        case .app(let app) where app.id == post.appID: break
        case .user(let u) where u.user.id == post.authorID && u.app.id == post.appID:
            guard u.has(Permission.publishActions) else {
                throw GraphFailure(.missingPermission(Permission.publishActions))
            }
        default:
            if try await canRead(post, caller: caller) { throw GraphFailure(.permissionsError) }
            throw GraphFailure(.unsupportedRequest(method: "delete", objectID: objectID))
        }
        try await services.storage.posts.delete(id: post.id)
        return .success
    }
}

/// Graph's time format, `2026-11-21T08:30:00+0000`.
enum GraphTime {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        return formatter.string(from: date)
    }
}
