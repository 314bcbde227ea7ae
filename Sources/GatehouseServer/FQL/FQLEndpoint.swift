import GatehouseCore
import Foundation
import GatehouseProtocol

/// `GET /fql?q=…`: the seeds' query language, limited to the person, their friends who use the app, and
/// the app's permissions. Reads go through the Graph user-field rules (`UserEndpoints`), so a column is
/// only filled when the Graph field behind it would be; hidden columns come back `null`.
struct FQLEndpoint: Sendable {
    let services: GatehouseServices

    func handle(_ call: GraphCall, caller: Caller) async throws -> GraphReply {
        guard call.method == .get || call.method == .post else {
            throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: "fql"))
        }
        let query: FQLQuery
        do {
            query = try FQLParser.parse(call.params["q"] ?? "")
        } catch {
            throw GraphFailure(.fqlParser(error.message))
        }
        let selected = try await rows(query, caller: caller, call: call)
        return .json(["data": .array(selected.map(JSONValue.object))])
    }

    /// The REST form seed 002 calls (`GET /method/fql.query?query=…&format=json`, the SDK's
    /// `requestWithMethodName:@"FQL.query"`): the same query in `query`, answered as a bare array of rows.
    func handleREST(_ call: GraphCall, caller: Caller) async throws -> GraphReply {
        var graphForm = call
        graphForm.params["q"] = call.params["query"] ?? ""
        let reply = try await handle(graphForm, caller: caller)
        guard case .json(let body) = reply.body, let rows = body["data"] else { return reply }
        return .json(rows)
    }

    /// The rows a query selects, each with exactly the selected columns in order.
    func rows(_ query: FQLQuery, caller: Caller, call: GraphCall) async throws -> [JSONObject] {
        switch query.table {
        case "user": return try await userRows(query, caller: caller, call: call)
        case "friend": return try await friendRows(query, caller: caller)
        case "permissions": return try await permissionRows(query, caller: caller)
        default: throw GraphFailure(.fqlUnknownTable(query.table))
        }
    }

    // MARK: user

    private func userRows(_ query: FQLQuery, caller: Caller, call: GraphCall) async throws -> [JSONObject] {
        for column in query.columns where FQLColumns.user[column] == nil { throw GraphFailure(.fqlNotAMember(column, table: "user")) }
        guard query.condition.column == "uid" else { throw GraphFailure(.fqlNotIndexable) }
        let users = UserEndpoints(services: services)
        var out: [JSONObject] = []
        for scopedID in try await ids(query.condition.predicate, caller: caller, call: call) {
            guard let node = try await node(scopedID, caller: caller) else { continue }
            let graphFields = Set(query.columns.compactMap { FQLColumns.user[$0]?.graphField })
            let rendered = try await users.render(node, fields: graphFields.sorted().map { FieldSelection(name: $0) }, caller: caller, call: call)
            var row = JSONObject([])
            for column in query.columns {
                let rule = FQLColumns.user[column]!
                if let side = rule.pictureSide {
                    row[column] = rendered["picture"] == nil ? .null : users.pictureData(node, width: side, height: side)["url"] ?? .null
                } else {
                    row[column] = rendered[rule.graphField] ?? .null
                }
            }
            out.append(row)
        }
        return out
    }

    /// App-scoped ids named by a `uid` predicate, in order, without repeats.
    private func ids(_ predicate: FQLCondition.Predicate, caller: Caller, call: GraphCall) async throws -> [String] {
        var values: [String] = []
        switch predicate {
        case .equals(let v): values = [try await id(v, caller: caller)]
        case .inList(let list): for v in list { values.append(try await id(v, caller: caller)) }
        case .inQuery(let box):
            guard box.query.columns.count == 1 else {
                throw GraphFailure(.fqlParser("Parser error: a subquery must select exactly one column."))
            }
            for row in try await rows(box.query, caller: caller, call: call) {
                if let value = row.pairs.first?.1.stringValue { values.append(value) }
            }
        }
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    private func id(_ value: FQLValue, caller: Caller) async throws -> String {
        switch value {
        case .me: return try me(caller).scopedID
        case .number(let n), .string(let n): return n
        }
    }

    private func me(_ caller: Caller) throws -> UserCaller {
        guard case .user(let user) = caller else { throw GraphFailure(.activeTokenRequired) }
        return user
    }

    private func node(_ scopedID: String, caller: Caller) async throws -> UserNode? {
        let storage = services.storage
        guard scopedID.count <= 20, scopedID.allSatisfy(\.isNumber),
              let userID = try await storage.users.userID(appID: caller.app.id, scopedID: scopedID),
              let user = try await storage.users.find(id: userID)
        else { return nil }
        return UserNode(user: user, scopedID: scopedID, appID: caller.app.id)
    }

    // MARK: friend

    private func friendRows(_ query: FQLQuery, caller: Caller) async throws -> [JSONObject] {
        for column in query.columns where column != "uid1" && column != "uid2" { throw GraphFailure(.fqlNotAMember(column, table: "friend")) }
        guard query.condition.column == "uid1", query.condition.predicate == .equals(.me) else { throw GraphFailure(.fqlNotIndexable) }
        let me = try me(caller)
        let node = UserNode(user: me.user, scopedID: me.scopedID, appID: me.app.id)
        let users = UserEndpoints(services: services)
        // The same rule as GET /me/friends: the permission, and only friends who also use the app.
        guard try await users.readable(node, caller: caller).contains("user_friends") else {
            throw GraphFailure(.missingPermission("user_friends"))
        }
        let storage = services.storage
        var out: [JSONObject] = []
        for friendID in try await storage.friendships.friends(of: me.user.id) {
            guard try await storage.grants.find(appID: me.app.id, userID: friendID) != nil else { continue }
            let scoped = try await storage.users.scopedID(appID: me.app.id, userID: friendID)
            var row = JSONObject([])
            for column in query.columns { row[column] = .string(column == "uid1" ? me.scopedID : scoped) }
            out.append(row)
        }
        return out
    }

    // MARK: permissions

    private func permissionRows(_ query: FQLQuery, caller: Caller) async throws -> [JSONObject] {
        for column in query.columns where !Permission.isKnown(column) { throw GraphFailure(.fqlNotAMember(column, table: "permissions")) }
        guard query.condition.column == "uid", query.condition.predicate == .equals(.me) else { throw GraphFailure(.fqlNotIndexable) }
        let me = try me(caller)
        var row = JSONObject([])
        for column in query.columns { row[column] = .int(me.has(column) ? 1 : 0) }
        return [row]
    }
}

/// FQL's `user` columns and the Graph fields they are read through.
enum FQLColumns {
    struct Rule: Sendable {
        var graphField: String
        /// For `pic*` columns: the square side in pixels of the picture URL.
        var pictureSide: Int?
    }

    static let user: [String: Rule] = [
        "uid": Rule(graphField: "id"), "name": Rule(graphField: "name"), "first_name": Rule(graphField: "first_name"),
        "middle_name": Rule(graphField: "middle_name"), "last_name": Rule(graphField: "last_name"),
        "email": Rule(graphField: "email"), "sex": Rule(graphField: "gender"), "birthday_date": Rule(graphField: "birthday"),
        "profile_url": Rule(graphField: "link"), "current_location": Rule(graphField: "location"),
        "hometown_location": Rule(graphField: "hometown"), "quotes": Rule(graphField: "quotes"),
        "pic_square": Rule(graphField: "picture", pictureSide: 50), "pic_small": Rule(graphField: "picture", pictureSide: 50),
        "pic": Rule(graphField: "picture", pictureSide: 100), "pic_big": Rule(graphField: "picture", pictureSide: 200),
    ]
}
