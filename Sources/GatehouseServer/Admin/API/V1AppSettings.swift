import GatehouseCore
import Foundation
import GatehouseProtocol

/// The settable fields of an app in a v1 body (create or PATCH), read and checked as a whole. A field left out is
/// nil (unchanged); for the callbacks, an explicit null clears the URL.
struct AppSettings {
    var name: String?
    var redirectURIs: [String]?
    var jsSDKDomains: [String]?
    var approved: [String]?
    var requirePKCE: Bool?
    var requireAppSecret: Bool?
    var deauthorize: String??
    var dataDeletion: String??
    var roles: [(personID: String, role: AppRole)]?

    /// - Parameter creating: a create needs a name; a PATCH may leave it out.
    /// - Throws: a validation ``Problem`` naming the first field that is wrong (a role's person must exist).
    static func read(_ body: inout RequestBody, services: GatehouseServices, creating: Bool) async throws -> AppSettings
    {
        var settings = AppSettings()
        if creating || body.has("name") { settings.name = try body.requiredString("name", max: 100) }
        if let uris = try body.strings("redirect_uris", maxCount: RedirectURIPolicy.maximumPerApp + 1) {
            if let problem = RedirectURIPolicy.registrationProblem(uris) {
                throw Problem.validation("redirect_uris", problem)
            }
            settings.redirectURIs = uris
        }
        if let domains = try body.strings("js_sdk_domains", maxCount: JavaScriptSDKDomains.maximumPerApp + 1) {
            if let problem = JavaScriptSDKDomains.registrationProblem(domains) {
                throw Problem.validation("js_sdk_domains", problem)
            }
            settings.jsSDKDomains = domains
        }
        settings.approved = try body.permissions("approved_permissions")
        settings.requirePKCE = try body.bool("require_pkce")
        settings.requireAppSecret = try body.bool("require_app_secret")
        for field in ["deauthorize_callback_url", "data_deletion_callback_url"] where body.has(field) {
            let url = try body.string(field, max: 2000).flatMap { $0.isEmpty ? nil : $0 }
            if let url,
                !(url.hasPrefix("https://") || url.hasPrefix("http://")) || URLComponents(string: url)?.host == nil
            {
                throw Problem.validation(field, "\(field) must be an http:// or https:// URL")
            }
            if field == "deauthorize_callback_url" {
                settings.deauthorize = .some(url)
            } else {
                settings.dataDeletion = .some(url)
            }
        }
        if let value = body.value("roles"), !value.isNull {
            guard let items = value.arrayValue, items.count <= 200 else {
                throw Problem.validation("roles", "roles must be an array of at most 200 {person_id, role}")
            }
            var roles: [(String, AppRole)] = []
            for (i, item) in items.enumerated() {
                guard case .object = item else {
                    throw Problem.validation("roles[\(i)]", "roles[\(i)] must be an object {person_id, role}")
                }
                let fields = try RequestBody(item)
                try fields.finish(prefix: "roles[\(i)].", known: ["person_id", "role"])
                guard let personID = item["person_id"]?.stringValue, !personID.isEmpty, personID.count <= 20 else {
                    throw Problem.validation(
                        "roles[\(i)].person_id", "roles[\(i)].person_id must be a person's id (1 to 20 characters)")
                }
                guard let role = item["role"]?.stringValue.flatMap(AppRole.init(rawValue:)) else {
                    throw Problem.validation("roles[\(i)].role", "roles[\(i)].role must be admin, developer or tester")
                }
                guard try await services.storage.users.find(id: personID) != nil else {
                    throw Problem.unknownReference(
                        "roles[\(i)].person_id", "roles[\(i)].person_id must name an existing person")
                }
                guard !roles.contains(where: { $0.0 == personID }) else {
                    throw Problem.validation("roles[\(i)].person_id", "a person holds one role")
                }
                roles.append((personID, role))
            }
            settings.roles = roles
        }
        return settings
    }

    func apply(to app: inout AppRecord) {
        if let name { app.name = name }
        if let redirectURIs { app.redirectURIs = redirectURIs }
        if let jsSDKDomains { app.jsSDKDomains = jsSDKDomains }
        if let approved { app.approvedPermissions = approved }
        if let requirePKCE { app.requirePKCE = requirePKCE }
        if let requireAppSecret { app.requireAppSecret = requireAppSecret }
        if let deauthorize { app.deauthorizeCallbackURL = deauthorize }
        if let dataDeletion { app.dataDeletionCallbackURL = dataDeletion }
    }

    /// Whether a create with these settings would have made `app` with `roles` (fields left out take their defaults).
    func describes(_ app: AppRecord, roles existing: [(userID: String, role: AppRole)]) -> Bool {
        let wanted = AppRecord(
            id: app.id, secret: app.secret, clientToken: app.clientToken, name: name ?? app.name,
            redirectURIs: redirectURIs ?? [],
            requireAppSecret: requireAppSecret ?? false, requirePKCE: requirePKCE ?? false,
            approvedPermissions: approved ?? [],
            deauthorizeCallbackURL: deauthorize ?? nil, dataDeletionCallbackURL: dataDeletion ?? nil,
            createdAt: app.createdAt,
            jsSDKDomains: jsSDKDomains ?? [])
        let roleSet = { (pairs: [(String, AppRole)]) in Set(pairs.map { "\($0.0):\($0.1.rawValue)" }) }
        return wanted == app && roleSet(roles ?? []) == roleSet(existing.map { ($0.userID, $0.role) })
    }

    /// Makes the app's roles exactly the ones given (nothing when roles were left out).
    func saveRoles(of appID: String, services: GatehouseServices) async throws {
        guard let roles else { return }
        let apps = services.storage.apps
        for old in try await apps.roles(appID: appID) where !roles.contains(where: { $0.personID == old.userID }) {
            try await apps.setRole(appID: appID, userID: old.userID, role: nil)
        }
        for (personID, role) in roles { try await apps.setRole(appID: appID, userID: personID, role: role) }
    }
}
