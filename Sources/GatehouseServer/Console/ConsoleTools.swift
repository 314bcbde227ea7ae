import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Console pages for live tokens, error injection, the clock, and export/import.
struct ConsoleTools: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/console/tokens") { request, _ in
            let q = request.uri.queryParameters
            let app = q.get("app").flatMap { $0.isEmpty ? nil : $0 }, user = q.get("user").flatMap { $0.isEmpty ? nil : $0 }
            return try await console.page(request, "console-tokens", title: "Live tokens", nav: "tokens") { try await tokens(app: app, user: user) }
        }
        router.post("/console/tokens/:id/revoke") { request, context in
            try await console.action(request) { _ in
                let id = context.parameters.get("id") ?? ""
                let now = services.clock.now()
                guard let token = try await services.storage.tokens.live(appID: nil, userID: nil, now: now).first(where: { $0.id == id }) else {
                    throw ConsoleInputError("That token is no longer live.")
                }
                try await services.storage.tokens.revoke(id: token.id, at: now)
                return "/console/tokens?notice=revoked"
            }
        }
        router.get("/console/errors") { request, _ in
            try await console.page(request, "console-errors", title: "Error injection", nav: "errors") { try await injections() }
        }
        router.post("/console/errors") { request, _ in
            try await console.action(request) { form in
                guard let kind = form["target"].flatMap(InjectionTargetKind.init(rawValue:)) else { throw ConsoleInputError("Pick a person, an app or a token.") }
                let timesText = (form["times"] ?? "").trimmingCharacters(in: .whitespaces)
                let times = timesText.isEmpty ? nil : Int(timesText)
                if !timesText.isEmpty, times == nil { throw ConsoleInputError("Times must be a whole number, or empty for until cleared.") }
                _ = try await ErrorInjector(services: services).add(kind: kind, target: (form["id"] ?? "").trimmingCharacters(in: .whitespaces), error: form["error"] ?? "", times: times)
                return "/console/errors?notice=injected"
            }
        }
        router.post("/console/errors/clear") { request, _ in
            try await console.action(request) { _ in
                try await services.storage.emulator.deleteAllInjections()
                return "/console/errors?notice=cleared"
            }
        }
        router.post("/console/errors/:id/delete") { request, context in
            try await console.action(request) { _ in
                _ = try await services.storage.emulator.deleteInjection(id: context.parameters.get("id") ?? "")
                return "/console/errors?notice=cleared"
            }
        }
        router.get("/console/clock") { request, _ in
            try await console.page(request, "console-clock", title: "Clock", nav: "clock") {
                let status = ClockControl(services: services).status()
                return [
                    "controllable": status.controllable, "offsetText": ConsoleController.offsetText(status.offset),
                    "presets": [["by": "1h", "label": "+1 hour (short-lived tokens)"], ["by": "61d", "label": "+61 days (long-lived tokens)"], ["by": "91d", "label": "+91 days (data access)"]],
                ]
            }
        }
        router.post("/console/clock/advance") { request, _ in
            try await console.action(request) { form in
                guard let seconds = DurationParser.seconds(form["by"] ?? "") else { throw ConsoleInputError("Type a duration such as 61d, 12h or 90m.") }
                _ = try await ClockControl(services: services).advance(by: seconds)
                return "/console/clock?notice=clock"
            }
        }
        router.post("/console/clock/reset") { request, _ in
            try await console.action(request) { _ in
                _ = try await ClockControl(services: services).reset()
                return "/console/clock?notice=clock"
            }
        }
        router.get("/console/data") { request, _ in
            try await console.page(request, "console-data", title: "Export and import", nav: "data") { [:] }
        }
        router.post("/console/data/import") { request, _ in
            try await console.action(request, limit: 256 << 20) { form in
                guard let bytes = form.files["state"], !bytes.isEmpty else { throw ConsoleInputError("Choose an export file.") }
                do {
                    try await StateTransfer(services: services).replace(with: try StateTransfer.decode(Data(bytes)))
                } catch let error as StateTransfer.ImportError {
                    throw ConsoleInputError(error.description)
                }
                // The import replaced the browser's own session too; the console stays open in development mode.
                return "/console?notice=imported"
            }
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
                if grants[key] == nil { grants[key] = try await storage.grants.find(appID: token.appID, userID: userID) }
                scopes = grants[key]?.granted.joined(separator: ", ") ?? "(app removed)"
            }
            rows.append([
                "id": token.id, "hash": String(token.tokenHash.prefix(12)), "kind": token.kind.rawValue, "appName": apps[token.appID]?.name ?? token.appID,
                "userName": token.userID.flatMap { users[$0]?.fullName } ?? "", "scopes": scopes,
                "issued": ConsoleController.timestamp(token.issuedAt), "expires": token.expiresAt.map(ConsoleController.timestamp) ?? "never",
            ])
        }
        return ["tokens": rows, "apps": try await console.appOptions(selected: app), "people": try await console.peopleOptions(selected: user)]
    }

    private func injections() async throws -> [String: Any] {
        let storage = services.storage
        var rows: [[String: Any]] = []
        for injection in try await storage.emulator.injections() {
            var target = "\(injection.targetKind.rawValue) \(injection.targetID)"
            switch injection.targetKind {
            case .user: if let u = try await storage.users.find(id: injection.targetID) { target = "person \(u.fullName)" }
            case .app: if let a = try await storage.apps.find(id: injection.targetID) { target = "app \(a.name)" }
            case .token: target = "token \(injection.targetID)"
            }
            rows.append([
                "id": injection.id, "target": target,
                "error": InjectableError(code: injection.code, subcode: injection.subcode)?.title ?? "\(injection.code)",
                "remaining": injection.remaining.map(String.init) ?? "until cleared",
            ])
        }
        return [
            "injections": rows, "hasInjections": !rows.isEmpty, "people": try await console.peopleOptions(), "apps": try await console.appOptions(),
            "errors": InjectableError.allCases.map { ["value": $0.rawValue, "title": $0.title] },
        ]
    }
}
