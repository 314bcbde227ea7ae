import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Console pages for apps: list and create, settings (redirect URIs, callbacks, App Review), secret reset, roles.
struct ConsoleApps: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.apps), use: list)
        router.post(RouterPath(PagePath.Console.apps), use: create)
        router.get(RouterPath(PagePath.Console.app), use: show)
        router.post(RouterPath(PagePath.Console.app), use: saveSettings)
        router.post(RouterPath(PagePath.Console.appResetSecret), use: resetSecret)
        router.post(RouterPath(PagePath.Console.appRoles), use: setRole)
    }

    /// `GET /console/apps`: every app with its redirect URIs and approved permissions.
    @Sendable func list(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-apps", title: "Apps", nav: "apps") {
            [
                "apps": try await services.storage.apps.list().map { app -> [String: Any] in
                    [
                        "id": app.id, "name": app.name, "redirects": app.redirectURIs.joined(separator: " "),
                        "approved": app.approvedPermissions.isEmpty
                            ? "none" : app.approvedPermissions.joined(separator: ", "),
                    ]
                }
            ]
        }
    }

    /// `POST /console/apps`: a new app from a name and redirect URIs.
    @Sendable func create(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let redirectURIs = Self.lines(form["redirect_uris"])
            if let problem = RedirectURIPolicy.registrationProblem(redirectURIs) { throw ConsoleInputError(problem) }
            let app = try await services.accounts.createApp(name: form["name"] ?? "", redirectURIs: redirectURIs)
            return PagePath.Console.app(app.id, notice: "created")
        }
    }

    /// `GET /console/apps/:id`: the settings page; the secret only with `?show=secret`.
    @Sendable func show(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard let app = try await services.storage.apps.find(id: id) else {
            return try await console.refused(request, "There is no app \(id).", status: .notFound)
        }
        // The secret is rendered only when asked for, never as a hidden part of every page.
        let showSecret = request.uri.queryParameters.get("show") == "secret"
        return try await console.page(request, "console-app", title: app.name, nav: "apps") {
            var values = try await values(app)
            values["showSecret"] = showSecret
            return values
        }
    }

    /// `POST /console/apps/:id`: the settings form, checked whole (``AppSettingsForm``) before anything is saved.
    @Sendable func saveSettings(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            var app = try await find(context)
            try AppSettingsForm(form).apply(to: &app)
            try await services.storage.apps.update(app)
            return PagePath.Console.app(app.id, notice: "saved")
        }
    }

    /// `POST /console/apps/:id/reset-secret`: a new secret; app tokens made with the old one are revoked.
    @Sendable func resetSecret(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            let app = try await find(context)
            try await services.accounts.changeSecret(of: app, to: services.random.hex(16))
            return PagePath.Console.app(app.id, notice: "secret")
        }
    }

    /// `POST /console/apps/:id/roles`: gives a person a role on the app, or takes it away (`none`).
    @Sendable func setRole(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let app = try await find(context)
            guard let userID = form["user_id"], try await services.storage.users.find(id: userID) != nil else {
                throw ConsoleInputError("Pick a person.")
            }
            let role = form["role"].flatMap(AppRole.init(rawValue:))
            guard role != nil || form["role"] == "none" else {
                throw ConsoleInputError("A role is admin, developer or tester.")
            }
            try await services.storage.apps.setRole(appID: app.id, userID: userID, role: role)
            return PagePath.Console.app(app.id, notice: "saved")
        }
    }

    private func find(_ context: GatehouseRequestContext) async throws -> AppRecord {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 20, let app = try await services.storage.apps.find(id: id) else {
            throw ConsoleInputError("There is no app \(id).")
        }
        return app
    }

    private func values(_ app: AppRecord) async throws -> [String: Any] {
        var roles: [[String: Any]] = []
        for (userID, role) in try await services.storage.apps.roles(appID: app.id) {
            let user = try await services.storage.users.find(id: userID)
            roles.append(["userID": userID, "userName": user?.fullName ?? userID, "role": role.rawValue])
        }
        let redirect = app.redirectURIs.first ?? services.configuration.baseURL + PagePath.devCallback
        let dialogURL =
            services.configuration.baseURL + PagePath.Dialog.oauth
            + "?client_id=\(app.id)&redirect_uri=\(FormEncoding.escape(redirect))&scope=public_profile,email&state=console"
        return [
            "app": [
                "id": app.id, "name": app.name, "secret": app.secret, "clientToken": app.clientToken,
                "requireAppSecret": app.requireAppSecret, "requirePKCE": app.requirePKCE,
                "deauthorizeCallbackURL": app.deauthorizeCallbackURL ?? "",
                "dataDeletionCallbackURL": app.dataDeletionCallbackURL ?? "",
            ] as [String: Any],
            "redirects": app.redirectURIs.joined(separator: "\n"),
            "jsSDKDomains": app.jsSDKDomains.joined(separator: "\n"),
            "permissions": Permission.catalogue.filter(\.needsReview).map(\.name).map {
                [
                    "name": $0, "title": Permission.info($0)?.title ?? $0,
                    "approved": app.approvedPermissions.contains($0),
                ]
            },
            "roles": roles, "people": try await console.peopleOptions(), "dialogURL": dialogURL,
        ]
    }

    static func lines(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    static func optional(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}

/// The app settings form, decoded and checked as a whole: a bad field refuses the form and changes nothing.
struct AppSettingsForm: Equatable {
    var name: String
    var redirectURIs: [String]
    var jsSDKDomains: [String]
    var approvedPermissions: [String]
    var requireAppSecret: Bool
    var requirePKCE: Bool
    var deauthorizeCallbackURL: String?
    var dataDeletionCallbackURL: String?

    /// - Throws: ``ConsoleInputError`` naming the first field that is wrong.
    init(_ form: FormBody) throws {
        name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 100 else {
            throw ConsoleInputError("An app needs a name of at most 100 characters.")
        }
        redirectURIs = ConsoleApps.lines(form["redirect_uris"])
        if let problem = RedirectURIPolicy.registrationProblem(redirectURIs) { throw ConsoleInputError(problem) }
        jsSDKDomains = ConsoleApps.lines(form["js_sdk_domains"])
        if let problem = JavaScriptSDKDomains.registrationProblem(jsSDKDomains) { throw ConsoleInputError(problem) }
        // Known names only, each once: the catalogue bounds the list whatever the form repeats.
        var seen = Set<String>()
        approvedPermissions = form.all("approved").filter { seen.insert($0).inserted }
        if let unknown = approvedPermissions.first(where: { !Permission.isKnown($0) }) {
            throw ConsoleInputError("Unknown permission \(GraphError.echo(unknown)).")
        }
        deauthorizeCallbackURL = ConsoleApps.optional(form["deauthorize_callback_url"])
        dataDeletionCallbackURL = ConsoleApps.optional(form["data_deletion_callback_url"])
        for url in [deauthorizeCallbackURL, dataDeletionCallbackURL].compactMap({ $0 })
        where !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
            throw ConsoleInputError("Callback URLs must start with https:// (or http:// for local development).")
        }
        requireAppSecret = form["require_app_secret"] == "1"
        requirePKCE = form["require_pkce"] == "1"
    }

    func apply(to app: inout AppRecord) {
        app.name = name
        app.redirectURIs = redirectURIs
        app.jsSDKDomains = jsSDKDomains
        app.approvedPermissions = approvedPermissions
        app.requireAppSecret = requireAppSecret
        app.requirePKCE = requirePKCE
        app.deauthorizeCallbackURL = deauthorizeCallbackURL
        app.dataDeletionCallbackURL = dataDeletionCallbackURL
    }
}
