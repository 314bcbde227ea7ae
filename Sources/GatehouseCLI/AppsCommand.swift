import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol
import GatehouseServer

/// `gatehouse apps …`: register and inspect apps.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Create, list, show, update and delete apps.",
        subcommands: [Create.self, List.self, Show.self, Update.self, Activity.self, Delete.self])

    struct Create: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app; prints its id, secret and client token.")
        @Option(help: "Display name.") var name: String
        @Option(name: .customLong("redirect-uri"), help: "A valid OAuth redirect URI (repeatable).") var redirectURIs:
            [String] = []
        @Flag(name: .customLong("require-app-secret"), help: "Require appsecret_proof on Graph calls with user tokens.")
        var requireAppSecret = false
        @Flag(
            name: .customLong("require-pkce"),
            help: "Require a PKCE code_challenge on every login dialog, and its verifier to redeem the code.")
        var requirePKCE = false
        @Option(name: .customLong("approve-permission"), help: "A permission approved by review (repeatable).")
        var approved: [String] = []
        @Option(
            name: .customLong("js-sdk-domain"),
            help:
                "A page origin allowed to log in with /sdk.js, e.g. https://shop.example (repeatable): Allowed Domains for the JavaScript SDK."
        ) var jsSDKDomains: [String] = []
        @Option(name: .customLong("deauthorize-url"), help: "Deauthorize callback URL.") var deauthorizeURL: String?
        @Option(name: .customLong("data-deletion-url"), help: "Data deletion callback URL.") var dataDeletionURL:
            String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            if let client = try remote.client {
                var body: JSONObject = [
                    "name": .string(name), "redirect_uris": .array(redirectURIs.map(JSONValue.string)),
                    "require_app_secret": .bool(requireAppSecret),
                    "require_pkce": .bool(requirePKCE), "approved_permissions": .array(approved.map(JSONValue.string)),
                ]
                if !jsSDKDomains.isEmpty { body["js_sdk_domains"] = .array(jsSDKDomains.map(JSONValue.string)) }
                if let deauthorizeURL { body["deauthorize_callback_url"] = .string(deauthorizeURL) }
                if let dataDeletionURL { body["data_deletion_callback_url"] = .string(dataDeletionURL) }
                return try await RemoteManagement.createApp(client, body: .object(body), json: json)
            }
            let app = try await withServices(data) { s in
                try await s.accounts.createApp(
                    name: name, redirectURIs: redirectURIs, requireAppSecret: requireAppSecret,
                    requirePKCE: requirePKCE,
                    approvedPermissions: approved,
                    deauthorizeCallbackURL: deauthorizeURL, dataDeletionCallbackURL: dataDeletionURL,
                    jsSDKDomains: jsSDKDomains)
            }
            if json {
                try printJSON(AppJSON(app, roles: []))
            } else {
                print(
                    "Created app \"\(app.name)\"\n  id:           \(app.id)\n  secret:       \(app.secret)\n  client token: \(app.clientToken)"
                )
            }
        }
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps.")
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document (an array).") var json = false

        func execute() async throws {
            if let client = try remote.client { return try await RemoteManagement.listApps(client, json: json) }
            let apps = try await withServices(data) { s in
                var out: [AppJSON] = []
                for app in try await s.storage.apps.list() {
                    out.append(AppJSON(app, roles: try await s.storage.apps.roles(appID: app.id)))
                }
                return out
            }
            if json { try printJSON(apps); return }
            if apps.isEmpty {
                print("No apps yet. Create one with `gatehouse apps create --name NAME --redirect-uri URI`.")
            }
            for app in apps {
                print(
                    "\(app.id)  \(app.name)  (\(app.redirect_uris.count) redirect URI\(app.redirect_uris.count == 1 ? "" : "s"))"
                )
            }
        }
    }

    struct Show: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one app.")
        @Argument(help: "The app id.") var id: String
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            if let client = try remote.client { return try await RemoteManagement.showApp(client, id: id, json: json) }
            let app = try await withServices(data) { s -> AppJSON in
                guard let app = try await s.storage.apps.find(id: id) else { throw CLIError("no app with id \(id)") }
                return AppJSON(app, roles: try await s.storage.apps.roles(appID: id))
            }
            if json { try printJSON(app); return }
            print(
                """
                \(app.name)
                  id:                 \(app.id)
                  secret:             \(app.secret)
                  client token:       \(app.client_token)
                  redirect URIs:      \(app.redirect_uris.isEmpty ? "(none)" : app.redirect_uris.joined(separator: "\n                      "))
                  JS SDK domains:     \(app.js_sdk_domains.isEmpty ? "(none)" : app.js_sdk_domains.joined(separator: "\n                      "))
                  require app secret: \(app.require_app_secret ? "yes" : "no")
                  require PKCE:       \(app.require_pkce ? "yes" : "no")
                  approved:           \(app.approved_permissions.isEmpty ? "(public_profile and email "
                      + "only)" : app.approved_permissions.joined(separator: ", "))
                  roles:              \(app.roles.isEmpty ? "(none)" : app.roles.map { "\($0.user_id) \($0.role)" }.joined(separator: ", "))
                """)
        }
    }

    struct Update: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an app's redirect URIs, review approvals, roles or callbacks.")
        @Argument(help: "The app id.") var id: String
        @Option(name: .customLong("name")) var name: String?
        @Option(name: .customLong("add-redirect-uri")) var addRedirect: [String] = []
        @Option(name: .customLong("remove-redirect-uri")) var removeRedirect: [String] = []
        @Option(
            name: .customLong("add-js-sdk-domain"),
            help: "Allow pages on this origin (https://shop.example) to log in with /sdk.js (repeatable).")
        var addJSSDKDomain: [String] = []
        @Option(name: .customLong("remove-js-sdk-domain")) var removeJSSDKDomain: [String] = []
        @Option(name: .customLong("approve-permission")) var approve: [String] = []
        @Option(name: .customLong("unapprove-permission")) var unapprove: [String] = []
        @Option(name: .customLong("require-app-secret"), help: "true or false.") var requireAppSecret: Bool?
        @Option(
            name: .customLong("require-pkce"),
            help: "true or false: every login dialog must carry a PKCE code_challenge.") var requirePKCE: Bool?
        @Option(name: .customLong("role"), help: "USER:ROLE with ROLE admin, developer, tester or none (repeatable).")
        var roles: [String] = []
        @Option(name: .customLong("deauthorize-url")) var deauthorizeURL: String?
        @Option(name: .customLong("data-deletion-url")) var dataDeletionURL: String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            if let client = try remote.client { return try await RemoteManagement.updateApp(client, command: self) }
            let result = try await withServices(data) { s -> AppJSON in
                guard var app = try await s.storage.apps.find(id: id) else { throw CLIError("no app with id \(id)") }
                if let name { app.name = name }
                for uri in addRedirect where !app.redirectURIs.contains(uri) {
                    guard RedirectURIPolicy.isAcceptableRegistration(uri) else {
                        throw CLIError("\(uri) is not an absolute URL without a fragment")
                    }
                    app.redirectURIs.append(uri)
                }
                app.redirectURIs.removeAll { removeRedirect.contains($0) }
                for domain in addJSSDKDomain where !app.jsSDKDomains.contains(domain) {
                    app.jsSDKDomains.append(domain)
                }
                app.jsSDKDomains.removeAll { removeJSSDKDomain.contains($0) }
                if let problem = JavaScriptSDKDomains.registrationProblem(app.jsSDKDomains) { throw CLIError(problem) }
                for p in approve where !app.approvedPermissions.contains(p) {
                    guard Permission.isKnown(p) else { throw CLIError("unknown permission \(p)") }
                    app.approvedPermissions.append(p)
                }
                app.approvedPermissions.removeAll { unapprove.contains($0) }
                if let requireAppSecret { app.requireAppSecret = requireAppSecret }
                if let requirePKCE { app.requirePKCE = requirePKCE }
                if let deauthorizeURL { app.deauthorizeCallbackURL = deauthorizeURL.isEmpty ? nil : deauthorizeURL }
                if let dataDeletionURL { app.dataDeletionCallbackURL = dataDeletionURL.isEmpty ? nil : dataDeletionURL }
                try await s.storage.apps.update(app)
                for spec in roles {
                    let parts = spec.split(separator: ":").map(String.init)
                    guard parts.count == 2 else {
                        throw CLIError("--role takes USER:ROLE, e.g. alice@gatehouse.test:tester")
                    }
                    guard let user = try await s.accounts.findUser(parts[0]) else {
                        throw CLIError("no user \(parts[0])")
                    }
                    if parts[1] == "none" {
                        try await s.storage.apps.setRole(appID: app.id, userID: user.id, role: nil)
                    } else {
                        guard let role = AppRole(rawValue: parts[1]) else {
                            throw CLIError("role must be admin, developer, tester or none")
                        }
                        try await s.storage.apps.setRole(appID: app.id, userID: user.id, role: role)
                    }
                }
                return AppJSON(app, roles: try await s.storage.apps.roles(appID: app.id))
            }
            if json { try printJSON(result) } else { print("Updated app \(result.id) \"\(result.name)\"") }
        }
    }
}
