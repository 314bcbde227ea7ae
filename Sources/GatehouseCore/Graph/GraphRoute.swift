import Foundation

/// The Graph API's methods Gatehouse answers.
package enum GraphMethod: String, Sendable {
    case get = "GET", post = "POST", delete = "DELETE"
}

/// What a Graph call asks for, read from its method and path alone: a pure function, so every route is one
/// row of a table test (`GraphRouteTests`).
///
/// Routes that name an object (`/{id}`, `/me/friends`) say which object and edge; whether the object exists,
/// and what it is (a person, the app, a post, a request), is the dispatcher's question, because the answer
/// depends on the caller.
package enum GraphRoute: Equatable, Sendable {
    // Answered before the caller is authenticated.
    /// `POST /` with `batch=[…]`.
    case batch
    /// `GET /?ids=a,b`.
    case multipleIDs(String)
    /// Anything else on `/`.
    case rootUnsupported(GraphMethod)
    /// `/oauth/access_token`: code exchange, client credentials, `fb_exchange_token`.
    case accessToken
    /// `/oauth/access_token_info`.
    case accessTokenInfo
    /// `/debug_token`.
    case debugToken
    /// `/{app}/token_cache`: the remote token cache, in its own JSON shape.
    case tokenCache(appID: String)
    /// More than 8 segments, or a segment over 128 bytes: `(#2500) Unknown path components`.
    case tooLong

    // Answered for an authenticated caller.
    /// `/fql?q=…`.
    case fql
    /// `/method/fql.query` (the REST API's form).
    case fqlREST
    /// `/device/login` and `/device/login_status`.
    case deviceLogin
    case deviceLoginStatus
    /// `/{app}/accounts/test-users`, and `/{app}/accounts?type=test-users` (the edge as Facebook's reference
    /// documents it and its generated Business SDKs call it).
    case testUsers(appID: String)
    /// `/{app}/accounts/test-users/{anything}`: Facebook has no such node.
    case testUsersUnknown
    /// `/{app}/subscriptions`: the app's Webhooks subscriptions.
    case appSubscriptions(appID: String)
    /// `/{id}` and whatever follows it (`rest`: the edge and its arguments).
    case object(id: String, rest: [String])

    /// Reads a call: `path` is the segments after the version; `batch`, `ids` and `type` are those parameters.
    package static func parse(
        method: GraphMethod, path p: [String], batch: Bool, ids: String?, type: String? = nil
    ) -> GraphRoute {
        guard p.count <= 8, p.allSatisfy({ $0.utf8.count <= 128 }) else { return .tooLong }
        guard let first = p.first else {
            if method == .post, batch { return .batch }
            if method == .get, let ids { return .multipleIDs(ids) }
            return .rootUnsupported(method)
        }
        switch (first, p.count) {
        case ("oauth", 2) where p[1] == "access_token": return .accessToken
        case ("oauth", 2) where p[1] == "access_token_info": return .accessTokenInfo
        case ("debug_token", 1): return .debugToken
        case (_, 2) where p[1] == "token_cache": return .tokenCache(appID: first)
        case ("fql", 1): return .fql
        case ("method", 2) where p[1].lowercased() == "fql.query": return .fqlREST
        case ("device", 2) where p[1] == "login": return .deviceLogin
        case ("device", 2) where p[1] == "login_status": return .deviceLoginStatus
        case (_, 3) where p[1] == "accounts" && p[2] == "test-users": return .testUsers(appID: first)
        case (_, 4) where p[1] == "accounts" && p[2] == "test-users": return .testUsersUnknown
        case (_, 2) where p[1] == "accounts" && type == "test-users": return .testUsers(appID: first)
        case (_, 2) where p[1] == "subscriptions": return .appSubscriptions(appID: first)
        default:
            return .object(id: first, rest: Array(p.dropFirst()))
        }
    }

    /// Whether the route is answered before the token is checked.
    package var isPublic: Bool {
        switch self {
        case .batch, .multipleIDs, .rootUnsupported, .accessToken, .accessTokenInfo, .debugToken, .tokenCache, .tooLong:
            true
        case .fql, .fqlREST, .deviceLogin, .deviceLoginStatus, .testUsers, .testUsersUnknown, .appSubscriptions,
            .object:
            false
        }
    }
}

/// What a call on a person's node asks for: `/{person}` and its edges.
package enum UserNodeRoute: Equatable, Sendable {
    case read
    /// `DELETE /{test-user}`.
    case deleteTestUser
    /// `POST /{test-user}` with `name` and/or `password`.
    case updateTestUser
    case picture
    case friends
    /// `POST /{test-user}/friends/{other}`.
    case befriend(other: String)
    /// `/me/permissions` or `/me/permissions/{name}`; `only` also comes from `?permission=`.
    case permissions(only: String?)
    /// `DELETE /me/permissions`: removes the app.
    case removeApp
    /// `DELETE /me/permissions/{name}`.
    case revoke(String)
    case publish
    case timeline
    case appRequests
    /// A known edge with a method or depth it does not take: `(#100) Unsupported {method} request`.
    case unsupported
    /// An edge a person does not have: `(#100) Tried accessing nonexisting field ({edge}) on node type (User)`.
    case nonexistingField(String)

    package static let knownEdges: Set<String> = ["picture", "friends", "permissions", "feed", "apprequests"]

    /// Reads `/{person}` followed by `rest` (the edge and its arguments); `permissionParameter` is `?permission=`.
    package static func parse(method: GraphMethod, rest: [String], permissionParameter: String?) -> UserNodeRoute {
        let depth = 1 + rest.count
        let edge = rest.first
        let argument = rest.count > 1 ? rest[1] : nil
        switch (method, edge) {
        case (.get, nil) where depth == 1: return .read
        case (.delete, nil) where depth == 1: return .deleteTestUser
        case (.post, nil) where depth == 1: return .updateTestUser
        case (.get, "picture"): return .picture
        case (.get, "friends") where depth == 2: return .friends
        case (.post, "friends") where depth == 3: return .befriend(other: argument!)
        case (.get, "permissions") where depth <= 3: return .permissions(only: argument ?? permissionParameter)
        case (.delete, "permissions") where depth == 2: return .removeApp
        case (.delete, "permissions") where depth == 3: return .revoke(argument!)
        case (.post, "feed") where depth == 2: return .publish
        case (.get, "feed") where depth == 2: return .timeline
        case (.get, "apprequests") where depth == 2: return .appRequests
        case (_, .some(let edge)) where knownEdges.contains(edge): return .unsupported
        case (_, .some(let edge)): return .nonexistingField(edge)
        default: return .unsupported
        }
    }
}
