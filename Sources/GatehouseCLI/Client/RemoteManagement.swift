import GatehouseCore
import Foundation
import GatehouseProtocol

/// What `apps` and `users` do with `--server`: the same changes as on the local database, through the server's
/// `/admin/api/v1` with ``AdminClient``. `--json` prints the API's own objects.
enum RemoteManagement {
    // MARK: Apps

    static func listApps(_ client: AdminClient, json: Bool) async throws {
        let apps = try await client.all("/apps")
        if json { print(prettyJSON(.array(apps))); return }
        if apps.isEmpty {
            print("No apps yet. Create one with `gatehouse apps create --name NAME --redirect-uri URI`.")
        }
        for app in apps {
            let count = app["redirect_uris"]?.arrayValue?.count ?? 0
            print(
                "\(app["id"]?.stringValue ?? "")  \(app["name"]?.stringValue ?? "")  (\(count) redirect URI\(count == 1 ? "" : "s"))"
            )
        }
    }

    static func createApp(_ client: AdminClient, body: JSONValue, json: Bool) async throws {
        let app = try await client.v1("POST", "/apps", body: body) ?? .null
        if json { print(prettyJSON(app)); return }
        print(
            "Created app \"\(app["name"]?.stringValue ?? "")\"\n  id:           \(app["id"]?.stringValue ?? "")\n  "
                + "secret:       \(app["secret"]?.stringValue ?? "")\n  client token: \(app["client_token"]?.stringValue ?? "")"
        )
    }

    static func showApp(_ client: AdminClient, id: String, json: Bool) async throws {
        let app = try await client.v1("GET", "/apps/" + AdminClient.escape(id)) ?? .null
        if json { print(prettyJSON(app)); return }
        func list(_ field: String) -> [String] { app[field]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        let roles =
            app["roles"]?.arrayValue?.map { "\($0["person_id"]?.stringValue ?? "") \($0["role"]?.stringValue ?? "")" }
            ?? []
        print(
            """
            \(app["name"]?.stringValue ?? "")
              id:                 \(app["id"]?.stringValue ?? "")
              secret:             \(app["secret"]?.stringValue ?? "")
              client token:       \(app["client_token"]?.stringValue ?? "")
              redirect URIs:      \(list("redirect_uris").isEmpty ? "(none)" : list("redirect_uris").joined(separator: "\n                      "))
              JS SDK domains:     \(list("js_sdk_domains").isEmpty ? "(none)" : list("js_sdk_domains").joined(separator: "\n                      "))
              require app secret: \(app["require_app_secret"]?.boolValue == true ? "yes" : "no")
              require PKCE:       \(app["require_pkce"]?.boolValue == true ? "yes" : "no")
              approved:           \(list("approved_permissions").isEmpty ? "(public_profile and email "
                  + "only)" : list("approved_permissions").joined(separator: ", "))
              roles:              \(roles.isEmpty ? "(none)" : roles.joined(separator: ", "))
            """)
    }

    /// `apps update` remotely: reads the app, applies the additions and removals, and sends one PATCH.
    static func updateApp(_ client: AdminClient, command: AppsCommand.Update) async throws {
        let path = "/apps/" + AdminClient.escape(command.id)
        let app = try await client.v1("GET", path) ?? .null
        var patch: JSONObject = [:]
        if let name = command.name { patch["name"] = .string(name) }
        if !command.addRedirect.isEmpty || !command.removeRedirect.isEmpty {
            var uris = app["redirect_uris"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for uri in command.addRedirect where !uris.contains(uri) { uris.append(uri) }
            uris.removeAll { command.removeRedirect.contains($0) }
            patch["redirect_uris"] = .array(uris.map(JSONValue.string))
        }
        if !command.addJSSDKDomain.isEmpty || !command.removeJSSDKDomain.isEmpty {
            var domains = app["js_sdk_domains"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for domain in command.addJSSDKDomain where !domains.contains(domain) { domains.append(domain) }
            domains.removeAll { command.removeJSSDKDomain.contains($0) }
            patch["js_sdk_domains"] = .array(domains.map(JSONValue.string))
        }
        if !command.approve.isEmpty || !command.unapprove.isEmpty {
            var approved = app["approved_permissions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for permission in command.approve where !approved.contains(permission) { approved.append(permission) }
            approved.removeAll { command.unapprove.contains($0) }
            patch["approved_permissions"] = .array(approved.map(JSONValue.string))
        }
        if let value = command.requireAppSecret { patch["require_app_secret"] = .bool(value) }
        if let value = command.requirePKCE { patch["require_pkce"] = .bool(value) }
        if let url = command.deauthorizeURL { patch["deauthorize_callback_url"] = url.isEmpty ? .null : .string(url) }
        if let url = command.dataDeletionURL {
            patch["data_deletion_callback_url"] = url.isEmpty ? .null : .string(url)
        }
        if !command.roles.isEmpty {
            var roles = (app["roles"]?.arrayValue ?? []).compactMap { role -> (String, String)? in
                guard let person = role["person_id"]?.stringValue, let name = role["role"]?.stringValue else {
                    return nil
                }
                return (person, name)
            }
            for spec in command.roles {
                let parts = spec.split(separator: ":").map(String.init)
                guard parts.count == 2 else {
                    throw CLIError("--role takes USER:ROLE, e.g. alice@gatehouse.test:tester")
                }
                let person = try await personID(client, parts[0])
                roles.removeAll { $0.0 == person }
                if parts[1] != "none" { roles.append((person, parts[1])) }
            }
            patch["roles"] = .array(roles.map { ["person_id": .string($0.0), "role": .string($0.1)] })
        }
        let updated = try await client.v1("PATCH", path, body: .object(patch)) ?? .null
        if command.json {
            print(prettyJSON(updated))
        } else {
            print("Updated app \(updated["id"]?.stringValue ?? command.id) \"\(updated["name"]?.stringValue ?? "")\"")
        }
    }

    // MARK: People

    /// `query`: the list's filters (`app`, `test_users`, `email`), as `GET /people` takes them.
    static func listPeople(_ client: AdminClient, query: [(String, String)] = [], json: Bool) async throws {
        let people = try await client.all(
            "/people"
                + (query.isEmpty ? "" : "?" + query.map { "\($0)=\(AdminClient.escape($1))" }.joined(separator: "&")))
        if json { print(prettyJSON(.array(people))); return }
        if people.isEmpty { print("No users yet. Create one with `gatehouse users create …`.") }
        for p in people {
            let state = p["account_state"]?.stringValue ?? "active"
            print(
                "\(p["id"]?.stringValue ?? "")  \(p["name"]?.stringValue ?? "")  "
                    + "<\(p["email"]?.stringValue ?? "")>"
                    + (p["test_user_of"]?.stringValue.map { "  test user of \($0)" } ?? "")
                    + (state == "active" ? "" : "  [\(state)]")
            )
        }
    }

    static func createPerson(_ client: AdminClient, body: JSONValue, json: Bool) async throws {
        let person = try await client.v1("POST", "/people", body: body) ?? .null
        if json { print(prettyJSON(person)); return }
        print(
            "Created \(person["name"]?.stringValue ?? "") <\(person["email"]?.stringValue ?? "")> with id \(person["id"]?.stringValue ?? "")"
        )
    }

    static func befriend(_ client: AdminClient, _ first: String, _ second: String, json: Bool) async throws {
        let a = try await personID(client, first), b = try await personID(client, second)
        guard a != b else { throw CLIError("a person cannot befriend themselves") }
        _ = try await client.v1("PUT", "/people/\(AdminClient.escape(a))/friends/\(AdminClient.escape(b))")
        if json {
            print(prettyJSON(["friends": [.string(a), .string(b)], "success": true]))
        } else {
            print("\(first) and \(second) are now friends")
        }
    }

    /// A person's id from an id or an email (`GET /people?email=`).
    static func personID(_ client: AdminClient, _ idOrEmail: String) async throws -> String {
        guard idOrEmail.contains("@") else { return idOrEmail }
        let found = try await client.v1("GET", "/people?email=" + AdminClient.escape(idOrEmail))
        guard let id = found?["data"]?.arrayValue?.first?["id"]?.stringValue else {
            throw CLIError("no user \(idOrEmail)")
        }
        return id
    }
}
