import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// `/apps`: register, read, list, change, reset the secret of, and delete apps. An app object carries its secret
/// and client token, except for a read-only token (``SecretReads``).
struct V1Apps: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/apps") { try await list($0) },
            V1Route(method: .post, path: "/apps") { try await create($0) },
            V1Route(method: .get, path: "/apps/{id}") { call in
                let app = try await find(call.parameter("id"))
                return AdminAPIv1.reply(try await json(app, secrets: await call.mayReadSecrets()))
            },
            V1Route(method: .patch, path: "/apps/{id}") { try await update($0) },
            V1Route(method: .delete, path: "/apps/{id}") { call in
                guard try await AppDeletion(services: services).delete(appID: call.parameter("id")) else {
                    throw Self.missing(call.parameter("id"))
                }
                services.logger.info("app deleted through the admin API", metadata: ["app": "\(call.parameter("id"))"])
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .post, path: "/apps/{id}/reset-secret") { call in
                try call.body().finish()
                let app = try await find(call.parameter("id"))
                // The console's path: app tokens made with the old secret are revoked too.
                try await services.accounts.changeSecret(of: app, to: services.random.hex(16))
                return AdminAPIv1.reply(try await json(try await find(app.id)))
            },
        ]
    }

    func list(_ call: V1Call) async throws -> Response {
        let page = try Page(call.request)
        let apps = try await services.storage.apps.list()
        let shown = Array(apps.dropFirst(min(page.offset, apps.count)).prefix(page.limit))
        let secrets = shown.isEmpty ? false : await call.mayReadSecrets()
        var rendered: [String: JSONValue] = [:]
        for app in shown { rendered[app.id] = try await json(app, secrets: secrets) }
        return AdminAPIv1.reply(page.answer(apps) { rendered[$0.id] ?? .null })
    }

    /// `POST /apps`: 201 and the app; with a fixed `id` that exists, 200 when the body describes it, else 409.
    func create(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let id = try body.string("id", max: 20)
        if let id, id.isEmpty || !id.allSatisfy(\.isASCII) || !id.allSatisfy(\.isNumber) {
            throw Problem.validation("id", "id must be 1 to 20 digits")
        }
        let secret = try body.string("secret", max: 128)
        if let secret,
            secret.count < 8
                || !secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        {
            throw Problem.validation("secret", "secret must be 8 to 128 letters, digits, - or _")
        }
        let settings = try await AppSettings.read(&body, services: services, creating: true)
        try body.finish()
        if let id, let existing = try await services.storage.apps.find(id: id) {
            return try await sameOrConflict(existing, settings, secret: secret)
        }
        let app: AppRecord
        do {
            app = try await services.accounts.createApp(
                name: settings.name ?? "", redirectURIs: settings.redirectURIs ?? [],
                requireAppSecret: settings.requireAppSecret ?? false,
                requirePKCE: settings.requirePKCE ?? false, approvedPermissions: settings.approved ?? [],
                deauthorizeCallbackURL: settings.deauthorize ?? nil,
                dataDeletionCallbackURL: settings.dataDeletion ?? nil, id: id, secret: secret,
                jsSDKDomains: settings.jsSDKDomains ?? [])
        } catch StorageError.conflict {
            // Another request created the same id first: answer as if this one came second.
            guard let id, let existing = try await services.storage.apps.find(id: id) else {
                throw Problem.conflict("the app id is taken", field: "id")
            }
            return try await sameOrConflict(existing, settings, secret: secret)
        }
        try await settings.saveRoles(of: app.id, services: services)
        return AdminAPIv1.reply(try await json(app), status: .created)
    }

    private func sameOrConflict(_ existing: AppRecord, _ settings: AppSettings, secret: String?) async throws
        -> Response
    {
        let roles = try await services.storage.apps.roles(appID: existing.id)
        guard settings.describes(existing, roles: roles), secret == nil || secret == existing.secret else {
            throw Problem.conflict("an app with id \(existing.id) exists and differs from this body", field: "id")
        }
        return AdminAPIv1.reply(try await json(existing))
    }

    /// `PATCH /apps/{id}`: the fields given, checked together before anything is saved.
    func update(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        var app = try await find(call.parameter("id"))
        let settings = try await AppSettings.read(&body, services: services, creating: false)
        try body.finish()
        settings.apply(to: &app)
        try await services.storage.apps.update(app)
        try await settings.saveRoles(of: app.id, services: services)
        return AdminAPIv1.reply(try await json(app))
    }

    func find(_ id: String) async throws -> AppRecord {
        guard id.count <= 20, let app = try await services.storage.apps.find(id: id) else { throw Self.missing(id) }
        return app
    }

    static func missing(_ id: String) -> Problem { .notFound("there is no app \(GraphError.echo(id))") }

    /// The app as the API shows it; `secrets` false leaves out `secret` and `client_token`.
    func json(_ app: AppRecord, secrets: Bool = true) async throws -> JSONValue {
        let roles = try await services.storage.apps.roles(appID: app.id)
        var object: JSONObject = [
            "id": .string(app.id), "name": .string(app.name), "secret": .string(app.secret),
            "client_token": .string(app.clientToken),
            "redirect_uris": .array(app.redirectURIs.map(JSONValue.string)),
            "js_sdk_domains": .array(app.jsSDKDomains.map(JSONValue.string)),
            "approved_permissions": .array(app.approvedPermissions.map(JSONValue.string)),
            "require_pkce": .bool(app.requirePKCE), "require_app_secret": .bool(app.requireAppSecret),
            "deauthorize_callback_url": AdminAPIv1.optional(app.deauthorizeCallbackURL),
            "data_deletion_callback_url": AdminAPIv1.optional(app.dataDeletionCallbackURL),
            "roles": .array(roles.map { ["person_id": .string($0.userID), "role": .string($0.role.rawValue)] }),
            "created_time": AdminAPIv1.time(app.createdAt),
        ]
        if !secrets {
            _ = object.removeValue(forKey: "secret")
            _ = object.removeValue(forKey: "client_token")
        }
        return .object(object)
    }
}
