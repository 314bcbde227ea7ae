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
        for column in query.columns where FQLColumns.user[column] == nil {
            throw GraphFailure(.fqlNotAMember(column, table: "user"))
        }
        guard query.condition.column == UserField.id.fqlColumn else { throw GraphFailure(.fqlNotIndexable) }
        let users = UserEndpoints(services: services)
        var out: [JSONObject] = []
        for scopedID in try await ids(query.condition.predicate, caller: caller, call: call) {
            guard let node = try await node(scopedID, caller: caller) else { continue }
            let graphFields = Set(query.columns.compactMap { FQLColumns.user[$0]?.graphField })
            let rendered = try await users.render(
                node, fields: graphFields.sorted().map { FieldSelection(name: $0) }, caller: caller, call: call)
            var row = JSONObject([])
            for column in query.columns {
                let rule = FQLColumns.user[column]!
                if let side = rule.pictureSide {
                    row[column] =
                        rendered["picture"] == nil
                        ? .null : users.pictureData(node, width: side, height: side)["url"] ?? .null
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
        for column in query.columns where column != "uid1" && column != "uid2" {
            throw GraphFailure(.fqlNotAMember(column, table: "friend"))
        }
        guard query.condition.column == "uid1", query.condition.predicate == .equals(.me) else {
            throw GraphFailure(.fqlNotIndexable)
        }
        let me = try me(caller)
        let node = UserNode(user: me.user, scopedID: me.scopedID, appID: me.app.id)
        let users = UserEndpoints(services: services)
        // The same rule as GET /me/friends: the permission, and only friends who also use the app.
        guard try await users.readable(node, caller: caller).contains(UserField.friends.permission) else {
            throw GraphFailure(.missingPermission(UserField.friends.permission))
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
        for column in query.columns where !Permission.isKnown(column) {
            throw GraphFailure(.fqlNotAMember(column, table: "permissions"))
        }
        guard query.condition.column == UserField.id.fqlColumn, query.condition.predicate == .equals(.me) else {
            throw GraphFailure(.fqlNotIndexable)
        }
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

    /// The field table's FQL columns, and the picture at the sizes FQL's `pic*` columns name.
    static let user: [String: Rule] = Dictionary(
        uniqueKeysWithValues: UserField.all.compactMap { field in
            field.fqlColumn.map { ($0, Rule(graphField: field.name)) }
        }
            + [("pic_square", 50), ("pic_small", 50), ("pic", 100), ("pic_big", 200)].map {
                ($0.0, Rule(graphField: UserField.picture.name, pictureSide: $0.1))
            })
}
