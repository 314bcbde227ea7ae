import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Console pages for apps: list and create, settings (redirect URIs, callbacks, App Review), secret reset, roles.
struct ConsoleApps: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/console/apps") { request, _ in
            try await console.page(request, "console-apps", title: "Apps", nav: "apps") {
                ["apps": try await services.storage.apps.list().map { app -> [String: Any] in
                    ["id": app.id, "name": app.name, "redirects": app.redirectURIs.joined(separator: " "),
                     "approved": app.approvedPermissions.isEmpty ? "none" : app.approvedPermissions.joined(separator: ", ")]
                }]
            }
        }
        router.post("/console/apps") { request, _ in
            try await console.action(request) { form in
                let app = try await services.accounts.createApp(name: form["name"] ?? "", redirectURIs: Self.lines(form["redirect_uris"]))
                return "/console/apps/\(app.id)?notice=created"
            }
        }
        router.get("/console/apps/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            guard let app = try await services.storage.apps.find(id: id) else { return try await console.refused(request, "There is no app \(id).", status: .notFound) }
            // The secret is rendered only when asked for, never as a hidden part of every page.
            let showSecret = request.uri.queryParameters.get("show") == "secret"
            return try await console.page(request, "console-app", title: app.name, nav: "apps") {
                var values = try await values(app)
                values["showSecret"] = showSecret
                return values
            }
        }
        router.post("/console/apps/:id") { request, context in
            try await console.action(request) { form in
                var app = try await find(context)
                let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, name.count <= 100 else { throw ConsoleInputError("An app needs a name of at most 100 characters.") }
                let redirects = Self.lines(form["redirect_uris"])
                if let bad = redirects.first(where: { !RedirectURIPolicy.isAcceptableRegistration($0) }) {
                    throw ConsoleInputError("Redirect URI \"\(bad)\" must be an absolute URL without a fragment.")
                }
                let approved = form.all("approved")
                if let unknown = approved.first(where: { !Permission.isKnown($0) }) { throw ConsoleInputError("Unknown permission \(unknown).") }
                for field in ["deauthorize_callback_url", "data_deletion_callback_url"] {
                    if let url = Self.optional(form[field]), !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                        throw ConsoleInputError("Callback URLs must start with https:// (or http:// for local development).")
                    }
                }
                app.name = name
                app.redirectURIs = redirects
                app.approvedPermissions = approved
                app.requireAppSecret = form["require_app_secret"] == "1"
                app.requirePKCE = form["require_pkce"] == "1"
                app.deauthorizeCallbackURL = Self.optional(form["deauthorize_callback_url"])
                app.dataDeletionCallbackURL = Self.optional(form["data_deletion_callback_url"])
                try await services.storage.apps.update(app)
                return "/console/apps/\(app.id)?notice=saved"
            }
        }
        router.post("/console/apps/:id/reset-secret") { request, context in
            try await console.action(request) { _ in
                var app = try await find(context)
                app.secret = services.random.hex(16)
                try await services.storage.apps.update(app)
                let now = services.clock.now()
                for token in try await services.storage.tokens.live(appID: app.id, userID: nil, now: now) where token.kind == .app {
                    try await services.storage.tokens.revoke(id: token.id, at: now)
                }
                services.logger.info("app secret reset", metadata: ["app": "\(app.id)"])
                return "/console/apps/\(app.id)?notice=secret"
            }
        }
        router.post("/console/apps/:id/roles") { request, context in
            try await console.action(request) { form in
                let app = try await find(context)
                guard let userID = form["user_id"], try await services.storage.users.find(id: userID) != nil else { throw ConsoleInputError("Pick a person.") }
                let role = form["role"].flatMap(AppRole.init(rawValue:))
                guard role != nil || form["role"] == "none" else { throw ConsoleInputError("A role is admin, developer or tester.") }
                try await services.storage.apps.setRole(appID: app.id, userID: userID, role: role)
                return "/console/apps/\(app.id)?notice=saved"
            }
        }
    }

    private func find(_ context: GatehouseRequestContext) async throws -> AppRecord {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 20, let app = try await services.storage.apps.find(id: id) else { throw ConsoleInputError("There is no app \(id).") }
        return app
    }

    private func values(_ app: AppRecord) async throws -> [String: Any] {
        var roles: [[String: Any]] = []
        for (userID, role) in try await services.storage.apps.roles(appID: app.id) {
            let user = try await services.storage.users.find(id: userID)
            roles.append(["userID": userID, "userName": user?.fullName ?? userID, "role": role.rawValue])
        }
        let redirect = app.redirectURIs.first ?? services.configuration.baseURL + "/dev/callback"
        let dialogURL = services.configuration.baseURL + "/dialog/oauth?client_id=\(app.id)&redirect_uri=\(FormEncoding.escape(redirect))&scope=public_profile,email&state=console"
        return [
            "app": [
                "id": app.id, "name": app.name, "secret": app.secret, "clientToken": app.clientToken,
                "requireAppSecret": app.requireAppSecret, "requirePKCE": app.requirePKCE, "deauthorizeCallbackURL": app.deauthorizeCallbackURL ?? "",
                "dataDeletionCallbackURL": app.dataDeletionCallbackURL ?? "",
            ] as [String: Any],
            "redirects": app.redirectURIs.joined(separator: "\n"),
            "permissions": Permission.catalogue.filter(\.needsReview).map(\.name).map { ["name": $0, "title": Permission.info($0)?.title ?? $0, "approved": app.approvedPermissions.contains($0)] },
            "roles": roles, "people": try await console.peopleOptions(), "dialogURL": dialogURL,
        ]
    }

    static func lines(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func optional(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
