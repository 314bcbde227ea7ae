import ArgumentParser
import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

/// `gatehouse tokens mint|list|revoke|revoke-all`: user access tokens without a browser, on the local database
/// (`--data-dir`) or through a server's admin API (`--server`). Both run the admin API's `/tokens` operations
/// (``V1Tokens``), so the checks, the answers and `--json`'s objects are the same either way. (`gatehouse token`,
/// singular, is the terminal's own cached login.)
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Mint, list and revoke user access tokens without a browser (tests, back ends).",
        subcommands: [Mint.self, List.self, Revoke.self, RevokeAll.self])

    struct Mint: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mint a user access token for an app and a person; prints the token.",
            discussion: """
                The scopes join the person's grant for the app, as a login that asked for them would. \
                `TOKEN=$(gatehouse tokens mint --app APP_ID --user alice@example.com --scope email)` keeps it.
                """)
        @Option(help: "The app's id.") var app: String
        @Option(help: "The person's id or email.") var user: String
        @Option(name: .customLong("scope"), help: "A permission to grant (repeat it); public_profile is always in.")
        var scopes: [String] = []
        @Option(name: .customLong("expires-in"), help: "Lifetime in seconds (60 to 31536000; default 60 days).")
        var expiresIn: Int?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print the API's JSON object (id, scopes, expiry and access_token).") var json = false

        func execute() async throws {
            var body: JSONObject = ["app_id": .string(app), "scopes": .array(scopes.map(JSONValue.string))]
            if let expiresIn { body["expires_in"] = .int(Int64(expiresIn)) }
            let token = try await ManagementOperation.run(data, remote, method: "POST", route: "/tokens", status: 201) {
                client in
                body["person_id"] = .string(try await RemoteManagement.personID(client, user))
                return try await client.v1("POST", "/tokens", body: .object(body)) ?? .null
            } local: { s in
                body["person_id"] = .string(try await ManagementOperation.localPersonID(s, user))
                return try await V1Tokens(services: s).mint(body)
            }
            print(json ? prettyJSON(token) : token["access_token"]?.stringValue ?? "")
        }
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List live user tokens, newest first (never the token itself).")
        @Option(help: "Only this app's tokens.") var app: String?
        @Option(help: "Only this person's tokens (id or email).") var user: String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document (an array of the API's token objects).") var json = false

        func execute() async throws {
            let tokens: [JSONValue]
            if let client = try remote.client {
                var query: [String] = []
                if let app { query.append("app=" + AdminClient.escape(app)) }
                if let user {
                    query.append("person=" + AdminClient.escape(try await RemoteManagement.personID(client, user)))
                }
                tokens = try await client.all("/tokens" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
            } else {
                tokens = try await withServices(data) { s in
                    let person = try await user.asyncMap { try await ManagementOperation.localPersonID(s, $0) }
                    return try await V1Tokens(services: s).all(appID: app, personID: person)
                }
            }
            if json { print(prettyJSON(.array(tokens))); return }
            if tokens.isEmpty { print("No live tokens.") }
            for token in tokens {
                let scopes = token["scopes"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
                print(
                    "\(token["id"]?.stringValue ?? "")  app \(token["app_id"]?.stringValue ?? "")  person "
                        + "\(token["person_id"]?.stringValue ?? "-")  \(token["origin"]?.stringValue ?? "")  "
                        + "expires \(token["expires_time"]?.stringValue ?? "never")  [\(scopes)]"
                )
            }
        }
    }

    struct Revoke: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke one token by its id (from `tokens list`); Graph calls with it answer 190.")
        @Argument(help: "The token's id.") var id: String
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            _ = try await ManagementOperation.run(
                data, remote, method: "DELETE", route: "/tokens/{id}", status: 204, target: id
            ) {
                client in
                try await client.v1("DELETE", "/tokens/" + AdminClient.escape(id)) ?? .null
            } local: { s in
                try await V1Tokens(services: s).revoke(id: id)
                return .null
            }
            print(json ? prettyJSON(["id": .string(id), "revoked": true]) : "revoked token \(id)")
        }
    }

    struct RevokeAll: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-all", abstract: "Revoke every live token of a person, of an app, or of both.")
        @Option(help: "The app's id.") var app: String?
        @Option(help: "The person's id or email.") var user: String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func validate() throws {
            guard app != nil || user != nil else { throw ValidationError("name --app, --user or both") }
        }

        func execute() async throws {
            var body: JSONObject = [:]
            if let app { body["app_id"] = .string(app) }
            let answer = try await ManagementOperation.run(
                data, remote, method: "POST", route: "/tokens/revoke", status: 200
            ) {
                client in
                if let user { body["person_id"] = .string(try await RemoteManagement.personID(client, user)) }
                return try await client.v1("POST", "/tokens/revoke", body: .object(body)) ?? .null
            } local: { s in
                if let user { body["person_id"] = .string(try await ManagementOperation.localPersonID(s, user)) }
                return try await V1Tokens(services: s).revokeAll(body)
            }
            let count = answer["revoked"]?.intValue ?? 0
            print(json ? prettyJSON(answer) : "revoked \(count) token\(count == 1 ? "" : "s")")
        }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
