import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The Graph API Explorer: pick an app and a person (or paste a token), type a path and fields, choose a
/// method, and see the status and JSON. "Get token" mints a token for that person with chosen permissions.
///
/// Calls run through the same `GraphDispatcher` as HTTP requests, so what the explorer shows is exactly
/// what an app would receive. The token is shown because the developer asked for it.
struct ConsoleExplorer: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    /// The basic profile, the permissions behind the field table's other fields (in table order), and two
    /// permissions Facebook no longer grants, to show the explorer's declined answer.
    static let offeredPermissions =
        [Permission.publicProfile] + Permission.profilePermissions + [Permission.userPosts, Permission.publishActions]

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.explorer), use: show)
        router.post(RouterPath(PagePath.Console.explorer), use: submit)
    }

    /// `GET /console/explorer`: the empty explorer, set up for `GET me?fields=id,name`.
    @Sendable func show(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-explorer", title: "Graph API Explorer", nav: "explorer") {
            try await values(
                State(
                    app: nil, user: nil, token: "", method: "GET", path: "me", fields: "id,name", params: "",
                    permissions: [Permission.publicProfile]), result: nil)
        }
    }

    /// `POST /console/explorer`: runs the call (``ExplorerForm``) or mints a token for it, and shows the page again
    /// with the result. Unlike the other console forms it answers with the page itself, not a redirect.
    @Sendable func submit(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        guard await console.access.allows(request) else { return console.denied() }
        let body: FormBody
        switch await console.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let form): body = form
        }
        let form = ExplorerForm(body)
        var state = form.state
        var result: GraphReply?
        do {
            switch form.action {
            case .mintToken: state.token = try await mint(state)
            case .run: result = await run(state)
            }
        } catch let error as ConsoleInputError {
            return try await console.page(
                request, "console-explorer", title: "Graph API Explorer", nav: "explorer", status: .badRequest,
                error: error.message
            ) { try await values(state, result: nil) }
        }
        return try await console.page(request, "console-explorer", title: "Graph API Explorer", nav: "explorer") {
            try await values(state, result: result)
        }
    }

    struct State {
        var app: String?, user: String?, token: String, method: String, path: String, fields: String, params: String
        var permissions: [String]
    }

    /// Grants the chosen permissions (added to what the person already granted) and mints a token.
    func mint(_ state: State) async throws -> String {
        guard let appID = state.app, let app = try await services.storage.apps.find(id: appID) else {
            throw ConsoleInputError("Pick an app.")
        }
        guard let userID = state.user, try await services.storage.users.find(id: userID) != nil else {
            throw ConsoleInputError("Pick a person.")
        }
        let now = services.clock.now()
        let chosen = state.permissions.filter(Permission.isKnown)
        var grant =
            try await services.storage.grants.find(appID: app.id, userID: userID)
            ?? GrantRecord(
                appID: app.id, userID: userID, granted: [Permission.publicProfile], declined: [], createdAt: now,
                updatedAt: now, lastLoginAt: now)
        for permission in chosen where !grant.granted.contains(permission) { grant.granted.append(permission) }
        grant.declined.removeAll { chosen.contains($0) }
        grant.updatedAt = now
        grant.lastLoginAt = now
        try await services.storage.grants.save(grant)
        return try await services.tokens.mintUserToken(
            app: app, userID: userID, lifetime: Lifetimes.longLivedToken, origin: "console"
        ).0
    }

    func run(_ state: State) async -> GraphReply {
        var segments =
            state.path.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/").map(String.init) } ?? []
        var version = services.configuration.defaultGraphVersion
        if let first = segments.first, GraphAPIVersion.isReleased(first) {
            version = first; segments.removeFirst()
        }
        var params: [String: String] = [:]
        for (k, v) in FormEncoding.decode(state.params) ?? [] { params[k] = v }
        if let query = state.path.split(separator: "?", maxSplits: 1).dropFirst().first {
            for (k, v) in FormEncoding.decode(String(query)) ?? [] { params[k] = v }
        }
        if !state.fields.trimmingCharacters(in: .whitespaces).isEmpty { params["fields"] = state.fields }
        let call = GraphCall(
            method: GraphCall.Method(rawValue: state.method) ?? .get, path: segments, version: version, params: params,
            accessToken: state.token.isEmpty ? nil : state.token, basicCredentials: nil)
        return await GraphDispatcher(services: services).dispatch(call)
    }

    private func values(_ state: State, result: GraphReply?) async throws -> [String: Any] {
        var values: [String: Any] = [
            "apps": try await console.appOptions(selected: state.app),
            "people": try await console.peopleOptions(selected: state.user),
            "token": state.token, "path": state.path, "fields": state.fields, "params": state.params,
            "methods": ["GET", "POST", "DELETE"].map { ["name": $0, "selected": $0 == state.method] },
            "permissions": Self.offeredPermissions.map { ["name": $0, "checked": state.permissions.contains($0)] },
        ]
        if let result {
            values["hasResult"] = true
            values["status"] = "\(result.status)"
            values["statusClass"] = result.status < 400 ? "status-ok" : "status-err"
            switch result.body {
            case .json(let json): values["body"] = Self.pretty(json)
            case .bytes(let bytes, let type): values["body"] = "(\(bytes.count) bytes of \(type))"
            case .empty: values["body"] = result.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
            }
        }
        return values
    }

    /// Indented JSON in member order (the order Facebook's clients see).
    static func pretty(_ json: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch json {
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        case .object(let object) where !object.pairs.isEmpty:
            return "{\n"
                + object.pairs.map { inner + JSONValue.string($0.0).serialized() + ": " + pretty($0.1, indent: inner) }
                .joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return json.serialized()
        }
    }
}

/// The explorer's form: the call to make, and whether to run it or to mint a token for its app and person.
/// Nothing in it is refused: an unknown method falls back to GET, and the call itself reports what is wrong.
struct ExplorerForm {
    enum Action: Equatable { case run, mintToken }

    var state: ConsoleExplorer.State
    var action: Action

    init(_ form: FormBody) {
        state = ConsoleExplorer.State(
            app: form["app"], user: form["user"],
            token: (form["access_token"] ?? "").trimmingCharacters(in: .whitespaces),
            method: ["GET", "POST", "DELETE"].contains(form["method"] ?? "") ? form["method"]! : "GET",
            path: form["path"] ?? "me", fields: form["fields"] ?? "", params: form["params"] ?? "",
            permissions: form.all("permission"))
        action = form["action"] == "token" ? .mintToken : .run
    }
}
