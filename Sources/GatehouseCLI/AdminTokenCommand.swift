import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol
import GatehouseServer

/// `gatehouse admin token create|list|revoke`: admin API tokens, on the local database (`--data-dir`) or through
/// a server (`--server` with an admin token). Changes are recorded in the audit log.
struct AdminTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Create, list and revoke admin API tokens (sent as Authorization: Bearer).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a token and print it once: it is stored hashed and cannot be shown again.")
        @Option(help: "What the token is for (e.g. ci); shown in lists and in the audit log.") var name: String
        @Flag(name: .customLong("read-only"), help: "The token may only read (GET); every change is refused with 403.")
        var readOnly = false
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            let token: JSONValue
            if let client = try remote.client {
                token =
                    try await client.v1(
                        "POST", "/admin-tokens", body: ["name": .string(name), "read_only": .bool(readOnly)]) ?? .null
            } else {
                token = try await withServices(data) { s in
                    let created = try await AdminTokens(services: s).create(name: name, readOnly: readOnly)
                    await AuditLog(services: s).record(
                        actor: .cli, method: "POST", route: "/admin/api/v1/admin-tokens", target: created.record.id,
                        status: 201)
                    return AdminTokenCommand.json(created.record, token: created.token)
                }
            }
            if json { print(prettyJSON(token)); return }
            print(
                """
                Created admin token "\(token["name"]?.stringValue ?? name)"\(readOnly ? " "
                    + "(read-only)" : "") with id \(token["id"]?.stringValue ?? "?").
                Copy it now; it is not shown again:

                  \(token["token"]?.stringValue ?? "?")

                Send it as `Authorization: Bearer <token>`, or to the CLI as --admin-token / GATEHOUSE_ADMIN_TOKEN.
                """)
        }
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "List admin tokens (never their values).")
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document (an array).") var json = false

        func execute() async throws {
            let tokens: [JSONValue]
            if let client = try remote.client {
                tokens = try await client.all("/admin-tokens")
            } else {
                tokens = try await withServices(data) { s in
                    try await AdminTokens(services: s).list().map { AdminTokenCommand.json($0) }
                }
            }
            if json { print(prettyJSON(.array(tokens))); return }
            if tokens.isEmpty { print("No admin tokens. Create one with `gatehouse admin token create --name NAME`.") }
            for token in tokens {
                let state =
                    token["revoked_time"]?.stringValue.map { "revoked \($0)" }
                    ?? (token["read_only"]?.boolValue == true ? "read-only" : "read-write")
                print(
                    "\(token["id"]?.stringValue ?? "")  \(token["prefix"]?.stringValue ?? "")…  "
                        + "\(token["name"]?.stringValue ?? "")  \(state)  created \(token["created_time"]?.stringValue ?? "")"
                )
            }
        }
    }

    struct Revoke: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an admin token: it is refused from then on.")
        @Argument(help: "The token's id (from `gatehouse admin token list`).") var id: String
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions

        func execute() async throws {
            if let client = try remote.client {
                _ = try await client.v1("DELETE", "/admin-tokens/" + AdminClient.escape(id))
            } else {
                let revoked = try await withServices(data) { s in
                    let revoked = try await AdminTokens(services: s).revoke(id: id)
                    if revoked {
                        await AuditLog(services: s).record(
                            actor: .cli, method: "DELETE", route: "/admin/api/v1/admin-tokens/{id}", target: id,
                            status: 204)
                    }
                    return revoked
                }
                guard revoked else { throw fail("no live admin token with id \(id)") }
            }
            print("revoked admin token \(id)")
        }
    }

    /// The same shape as the API's `AdminToken`, so `--json` reads alike locally and remotely.
    static func json(_ record: AdminTokenRecord, token: String? = nil) -> JSONValue {
        var object: JSONObject = [
            "id": .string(record.id), "name": .string(record.name), "prefix": .string(record.displayPrefix),
            "read_only": .bool(record.readOnly), "created_time": .string(Self.time(record.createdAt)),
            "revoked_time": record.revokedAt.map { .string(Self.time($0)) } ?? .null,
        ]
        if let token { object["token"] = .string(token) }
        return .object(object)
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
