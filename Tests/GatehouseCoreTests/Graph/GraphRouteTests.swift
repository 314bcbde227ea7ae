import GatehouseCore
import Testing

/// Every Graph route, as a table: method and path in, route out.
@Suite struct GraphRouteTests {
    static let rows: [(GraphMethod, String, GraphRoute)] = [
        (.post, "", .rootUnsupported(.post)),
        (.get, "", .rootUnsupported(.get)),
        (.delete, "", .rootUnsupported(.delete)),
        (.get, "oauth/access_token", .accessToken),
        (.post, "oauth/access_token", .accessToken),
        (.get, "oauth/access_token_info", .accessTokenInfo),
        (.get, "oauth/authorize", .object(id: "oauth", rest: ["authorize"])),
        (.get, "debug_token", .debugToken),
        (.get, "debug_token/x", .object(id: "debug_token", rest: ["x"])),
        (.get, "123/token_cache", .tokenCache(appID: "123")),
        (.delete, "123/token_cache", .tokenCache(appID: "123")),
        (.get, "fql", .fql),
        (.get, "method/fql.query", .fqlREST),
        (.get, "method/FQL.Query", .fqlREST),
        (.post, "device/login", .deviceLogin),
        (.post, "device/login_status", .deviceLoginStatus),
        (.get, "device", .object(id: "device", rest: [])),
        (.get, "123/accounts/test-users", .testUsers(appID: "123")),
        (.post, "123/accounts/test-users", .testUsers(appID: "123")),
        (.get, "123/accounts/test-users/9", .testUsersUnknown),
        (.get, "123/accounts", .object(id: "123", rest: ["accounts"])),
        (.get, "123/subscriptions", .appSubscriptions(appID: "123")),
        (.post, "123/subscriptions", .appSubscriptions(appID: "123")),
        (.delete, "123/subscriptions", .appSubscriptions(appID: "123")),
        (.get, "me/subscriptions", .appSubscriptions(appID: "me")),
        (.get, "123/subscriptions/user", .object(id: "123", rest: ["subscriptions", "user"])),
        (.get, "subscriptions", .object(id: "subscriptions", rest: [])),
        (.get, "me", .object(id: "me", rest: [])),
        (.get, "me/permissions/email", .object(id: "me", rest: ["permissions", "email"])),
        (.get, "1_2", .object(id: "1_2", rest: [])),
        (.get, "a/b/c/d/e/f/g/h", .object(id: "a", rest: ["b", "c", "d", "e", "f", "g", "h"])),
        (.get, "a/b/c/d/e/f/g/h/i", .tooLong),
        (.get, String(repeating: "x", count: 129), .tooLong),
        (.get, String(repeating: "x", count: 128), .object(id: String(repeating: "x", count: 128), rest: [])),
    ]

    @Test(arguments: rows.indices)
    func routes(row: Int) {
        let (method, path, expected) = Self.rows[row]
        let segments = path.isEmpty ? [] : path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        #expect(
            GraphRoute.parse(method: method, path: segments, batch: false, ids: nil) == expected,
            "\(method.rawValue) /\(path)")
    }

    @Test func theAccountsEdgeOfTypeTestUsersIsTheTestUsersEdge() {
        func parse(_ method: GraphMethod, _ path: [String], type: String?) -> GraphRoute {
            GraphRoute.parse(method: method, path: path, batch: false, ids: nil, type: type)
        }
        for method in [GraphMethod.get, .post, .delete] {
            #expect(parse(method, ["123", "accounts"], type: "test-users") == .testUsers(appID: "123"))
        }
        #expect(parse(.get, ["123", "accounts"], type: "pages") == .object(id: "123", rest: ["accounts"]))
        #expect(parse(.get, ["123", "accounts", "test-users"], type: "test-users") == .testUsers(appID: "123"))
        #expect(parse(.get, ["123"], type: "test-users") == .object(id: "123", rest: []))
        #expect(parse(.get, ["123", "friends"], type: "test-users") == .object(id: "123", rest: ["friends"]))
    }

    @Test func theRootIsABatchOrAMultipleIDRead() {
        #expect(GraphRoute.parse(method: .post, path: [], batch: true, ids: nil) == .batch)
        #expect(GraphRoute.parse(method: .get, path: [], batch: true, ids: nil) == .rootUnsupported(.get))
        #expect(GraphRoute.parse(method: .get, path: [], batch: false, ids: "1,2") == .multipleIDs("1,2"))
        #expect(GraphRoute.parse(method: .post, path: [], batch: false, ids: "1,2") == .rootUnsupported(.post))
    }

    @Test func onlyTokenAndBatchRoutesSkipAuthentication() {
        let open: [GraphRoute] = [
            .batch, .multipleIDs(""), .rootUnsupported(.get), .accessToken, .accessTokenInfo, .debugToken,
            .tokenCache(appID: "1"), .tooLong,
        ]
        let guarded: [GraphRoute] = [
            .fql, .fqlREST, .deviceLogin, .deviceLoginStatus, .testUsers(appID: "1"), .testUsersUnknown,
            .appSubscriptions(appID: "1"), .object(id: "me", rest: []),
        ]
        #expect(open.allSatisfy { $0.isPublic })
        #expect(!guarded.contains { $0.isPublic })
    }

    static let userRows: [(GraphMethod, String, String?, UserNodeRoute)] = [
        (.get, "", nil, .read),
        (.delete, "", nil, .deleteTestUser),
        (.post, "", nil, .updateTestUser),
        (.get, "picture", nil, .picture),
        (.get, "picture/x", nil, .picture),
        (.post, "picture", nil, .unsupported),
        (.get, "friends", nil, .friends),
        (.get, "friends/9", nil, .unsupported),
        (.post, "friends/9", nil, .befriend(other: "9")),
        (.post, "friends", nil, .unsupported),
        (.get, "permissions", nil, .permissions(only: nil)),
        (.get, "permissions", "email", .permissions(only: "email")),
        (.get, "permissions/email", "user_friends", .permissions(only: "email")),
        (.delete, "permissions", nil, .removeApp),
        (.delete, "permissions/email", nil, .revoke("email")),
        (.post, "permissions", nil, .unsupported),
        (.post, "feed", nil, .publish),
        (.get, "feed", nil, .timeline),
        (.delete, "feed", nil, .unsupported),
        (.get, "apprequests", nil, .appRequests),
        (.post, "apprequests", nil, .unsupported),
        (.get, "likes", nil, .nonexistingField("likes")),
        (.post, "likes/1", nil, .nonexistingField("likes")),
        (.get, "friends/1/2", nil, .unsupported),
    ]

    @Test(arguments: userRows.indices)
    func userNodeRoutes(row: Int) {
        let (method, rest, parameter, expected) = Self.userRows[row]
        let segments = rest.isEmpty ? [] : rest.split(separator: "/").map(String.init)
        #expect(
            UserNodeRoute.parse(method: method, rest: segments, permissionParameter: parameter) == expected,
            "\(method.rawValue) /me/\(rest)")
    }
}
