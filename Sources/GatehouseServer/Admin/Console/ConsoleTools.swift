import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Console pages for live tokens, error injection, the clock, and export/import.
struct ConsoleTools: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.tokens), use: listTokens)
        router.post(RouterPath(PagePath.Console.tokenRevoke), use: revokeToken)
        router.get(RouterPath(PagePath.Console.errors), use: listInjections)
        router.post(RouterPath(PagePath.Console.errors), use: inject)
        router.post(RouterPath(PagePath.Console.errorsClear), use: clearInjections)
        router.post(RouterPath(PagePath.Console.errorDelete), use: deleteInjection)
        router.get(RouterPath(PagePath.Console.clock), use: showClock)
        router.post(RouterPath(PagePath.Console.clockAdvance), use: advanceClock)
        router.post(RouterPath(PagePath.Console.clockReset), use: resetClock)
        router.get(RouterPath(PagePath.Console.data), use: showData)
        router.post(RouterPath(PagePath.Console.dataImport), use: importState)
    }

    /// `GET /console/tokens`: live tokens, optionally of one app (`?app=`) or person (`?user=`).
    @Sendable func listTokens(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let q = request.uri.queryParameters
        let app = q.get("app").flatMap { $0.isEmpty ? nil : $0 }, user = q.get("user").flatMap { $0.isEmpty ? nil : $0 }
        return try await console.page(request, "console-tokens", title: "Live tokens", nav: "tokens") {
            try await tokens(app: app, user: user)
        }
    }

    /// `POST /console/tokens/:id/revoke`: revokes a token that is still live.
    @Sendable func revokeToken(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            let id = context.parameters.get("id") ?? ""
            let now = services.clock.now()
            guard
                let token = try await services.storage.tokens.live(appID: nil, userID: nil, now: now).first(where: {
                    $0.id == id
                })
            else {
                throw ConsoleInputError("That token is no longer live.")
            }
            try await services.storage.tokens.revoke(id: token.id, at: now)
            return PagePath.notice(PagePath.Console.tokens, "revoked")
        }
    }

    /// `GET /console/errors`: the injected errors and the form to add one.
    @Sendable func listInjections(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-errors", title: "Error injection", nav: "errors") {
            try await injections()
        }
    }

    /// `POST /console/errors`: injects an error (``InjectionForm``) for a person, an app or a token.
    @Sendable func inject(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let injection = try InjectionForm(form)
            _ = try await ErrorInjector(services: services).add(
                kind: injection.kind, target: injection.targetID, error: injection.error, times: injection.times)
            return PagePath.notice(PagePath.Console.errors, "injected")
        }
    }

    /// `POST /console/errors/clear`: removes every injected error.
    @Sendable func clearInjections(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            try await services.storage.emulator.deleteAllInjections()
            return PagePath.notice(PagePath.Console.errors, "cleared")
        }
    }

    /// `POST /console/errors/:id/delete`: removes one injected error.
    @Sendable func deleteInjection(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            _ = try await services.storage.emulator.deleteInjection(id: context.parameters.get("id") ?? "")
            return PagePath.notice(PagePath.Console.errors, "cleared")
        }
    }

    /// `GET /console/clock`: the emulator clock's offset and the preset jumps.
    @Sendable func showClock(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-clock", title: "Clock", nav: "clock") {
            let status = ClockControl(services: services).status()
            return [
                "controllable": status.controllable, "offsetText": ConsoleController.offsetText(status.offset),
                "presets": [
                    ["by": "1h", "label": "+1 hour (short-lived tokens)"],
                    ["by": "61d", "label": "+61 days (long-lived tokens)"],
                    ["by": "91d", "label": "+91 days (data access)"],
                ],
            ]
        }
    }

    /// `POST /console/clock/advance`: moves the clock forward by a duration (``ClockAdvanceForm``).
    @Sendable func advanceClock(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            _ = try await ClockControl(services: services).advance(by: try ClockAdvanceForm(form).seconds)
            return PagePath.notice(PagePath.Console.clock, "clock")
        }
    }

    /// `POST /console/clock/reset`: back to the real time.
    @Sendable func resetClock(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            _ = try await ClockControl(services: services).reset()
            return PagePath.notice(PagePath.Console.clock, "clock")
        }
    }

    /// `GET /console/data`: the export link and the import form.
    @Sendable func showData(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-data", title: "Export and import", nav: "data") { [:] }
    }

    /// `POST /console/data/import`: replaces the whole state with an uploaded export (``ImportForm``, up to 256 MiB).
    @Sendable func importState(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request, limit: 256 << 20) { form in
            let upload = try ImportForm(form)
            do {
                try await StateTransfer(services: services).replace(with: try StateTransfer.decode(upload.state))
            } catch let error as StateTransfer.ImportError {
                throw ConsoleInputError(error.description)
            }
            // The import replaced the browser's own session too; the console stays open in development mode.
            return PagePath.notice(PagePath.Console.home, "imported")
        }
    }

    private func tokens(app: String?, user: String?) async throws -> [String: Any] {
        let storage = services.storage
        let now = services.clock.now()
        var apps: [String: AppRecord] = [:], users: [String: UserRecord] = [:], grants: [String: GrantRecord] = [:]
        for a in try await storage.apps.list() { apps[a.id] = a }
        for u in try await storage.users.list() { users[u.id] = u }
        var rows: [[String: Any]] = []
        for token in try await storage.tokens.live(appID: app, userID: user, now: now).prefix(500) {
            var scopes = "(app)"
            if let userID = token.userID {
                let key = token.appID + "/" + userID
                if grants[key] == nil {
                    grants[key] = try await storage.grants.find(appID: token.appID, userID: userID)
                }
                scopes = grants[key]?.granted.joined(separator: ", ") ?? "(app removed)"
            }
            rows.append([
                "id": token.id, "hash": String(token.tokenHash.prefix(12)), "kind": token.kind.rawValue,
                "appName": apps[token.appID]?.name ?? token.appID,
                "userName": token.userID.flatMap { users[$0]?.fullName } ?? "", "scopes": scopes,
                "issued": ConsoleController.timestamp(token.issuedAt),
                "expires": token.expiresAt.map(ConsoleController.timestamp) ?? "never",
            ])
        }
        return [
            "tokens": rows, "apps": try await console.appOptions(selected: app),
            "people": try await console.peopleOptions(selected: user),
        ]
    }

    private func injections() async throws -> [String: Any] {
        let storage = services.storage
        var rows: [[String: Any]] = []
        for injection in try await storage.emulator.injections() {
            var target = "\(injection.targetKind.rawValue) \(injection.targetID)"
            switch injection.targetKind {
            case .user:
                if let u = try await storage.users.find(id: injection.targetID) { target = "person \(u.fullName)" }
            case .app: if let a = try await storage.apps.find(id: injection.targetID) { target = "app \(a.name)" }
            case .token: target = "token \(injection.targetID)"
            }
            rows.append([
                "id": injection.id, "target": target,
                "error": InjectableError(code: injection.code, subcode: injection.subcode)?.title
                    ?? "\(injection.code)",
                "remaining": injection.remaining.map(String.init) ?? "until cleared",
            ])
        }
        return [
            "injections": rows, "hasInjections": !rows.isEmpty, "people": try await console.peopleOptions(),
            "apps": try await console.appOptions(),
            "errors": InjectableError.allCases.map { ["value": $0.rawValue, "title": $0.title] },
        ]
    }
}

/// The error injection form: whom the error is for, which error, and how many times (empty: until cleared).
/// The error name and the target are checked by ``ErrorInjector``, as for the admin API.
struct InjectionForm: Equatable {
    var kind: InjectionTargetKind
    var targetID: String
    var error: String
    var times: Int?

    /// - Throws: ``ConsoleInputError`` naming the first field that is wrong.
    init(_ form: FormBody) throws {
        guard let kind = form["target"].flatMap(InjectionTargetKind.init(rawValue:)) else {
            throw ConsoleInputError("Pick a person, an app or a token.")
        }
        self.kind = kind
        let timesText = (form["times"] ?? "").trimmingCharacters(in: .whitespaces)
        times = timesText.isEmpty ? nil : Int(timesText)
        if !timesText.isEmpty, times == nil {
            throw ConsoleInputError("Times must be a whole number, or empty for until cleared.")
        }
        targetID = (form["id"] ?? "").trimmingCharacters(in: .whitespaces)
        error = form["error"] ?? ""
    }
}

/// The clock form: a duration such as 61d, 12h or 90m.
struct ClockAdvanceForm: Equatable {
    var seconds: TimeInterval

    /// - Throws: ``ConsoleInputError`` when `by` is not a duration.
    init(_ form: FormBody) throws {
        guard let seconds = DurationParser.seconds(form["by"] ?? "") else {
            throw ConsoleInputError("Type a duration such as 61d, 12h or 90m.")
        }
        self.seconds = seconds
    }
}

/// The import form: the uploaded export file (multipart field `state`).
struct ImportForm: Equatable {
    var state: Data

    /// - Throws: ``ConsoleInputError`` when no file was chosen.
    init(_ form: FormBody) throws {
        guard let bytes = form.files["state"], !bytes.isEmpty else { throw ConsoleInputError("Choose an export file.") }
        state = Data(bytes)
    }
}
