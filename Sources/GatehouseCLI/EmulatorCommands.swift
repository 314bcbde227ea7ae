import GatehouseCore
import ArgumentParser
import Foundation

/// Which running server the emulator commands talk to (they use its admin API, `/admin/api/v1/…`).
struct AdminServerOptions: ParsableArguments {
    @Option(help: "The Gatehouse server (default: the dev seed's, else http://127.0.0.1:8080).") var server: String?
    @Option(
        name: .customLong("data-dir"),
        help: "The local server's data folder, for its dev-seed.json (env GATEHOUSE_DATA_DIR; default ./.gatehouse).")
    var dataDir: String?
    @Option(
        name: .customLong("admin-token"), help: "An admin token, for a production server (env GATEHOUSE_ADMIN_TOKEN).")
    var adminToken: String?
    @Flag(help: "Print the server's JSON reply.") var json = false
    @OptionGroup var trustOptions: TrustOptions

    var baseURL: String {
        if let server { return server.hasSuffix("/") ? String(server.dropLast()) : server }
        let seed = ((dataDir ?? Environment.value("GATEHOUSE_DATA_DIR") ?? ".gatehouse") as NSString)
            .appendingPathComponent("dev-seed.json")
        if let data = FileManager.default.contents(atPath: seed),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let url = object["server"] as? String
        {
            return url
        }
        return "http://127.0.0.1:8080"
    }

    /// The admin API client for this server, with `--admin-token` or `GATEHOUSE_ADMIN_TOKEN`.
    var client: AdminClient {
        get throws {
            AdminClient(
                baseURL: baseURL, token: adminToken ?? Environment.value("GATEHOUSE_ADMIN_TOKEN"),
                trust: try trustOptions.trust())
        }
    }

    /// Calls a route of the admin API (`/admin/api/v1<path>`); a refusal exits 1 with the server's message, no server
    /// exits 3.
    func call(_ method: String, _ path: String, json body: Data? = nil) async throws -> (Int, Data) {
        try await client.call(method, "/admin/api/v1" + path, json: body)
    }

    static func object(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    static func body(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}

/// `gatehouse clock`: show or move the emulator's clock (development mode).
struct ClockCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock", abstract: "Show or move the server's clock (development mode).",
        discussion:
            "Examples: `gatehouse clock`, `gatehouse clock advance 61d`, `gatehouse clock reset`. Durations: 90s, 45m, 12h, 61d, 2w."
    )

    @Argument(help: "show, advance or reset.") var action: String = "show"
    @Argument(help: "How far to move forward, for advance.") var duration: String?
    @OptionGroup var server: AdminServerOptions

    func execute() async throws {
        let data: Data
        switch action {
        case "show": data = try await server.call("GET", "/clock").1
        case "reset": data = try await server.call("POST", "/clock/reset", json: Data("{}".utf8)).1
        case "advance":
            guard let duration else { throw fail("say how far, e.g. `gatehouse clock advance 61d`") }
            data = try await server.call("POST", "/clock/advance", json: AdminServerOptions.body(["by": duration])).1
        default: throw fail("unknown action \(action); use show, advance DURATION or reset")
        }
        if server.json { print(String(decoding: data, as: UTF8.self)); return }
        let status = AdminServerOptions.object(data)
        let offset = (status["offset_seconds"] as? Int) ?? 0
        print(
            "server time \(status["now_iso"] as? String ?? "?")"
                + (offset == 0
                    ? " (real time)"
                    : " (moved forward \(offset) s, \(String(format: "%.1f", Double(offset) / 86400)) days)"))
    }
}

/// `gatehouse inject`: make Graph calls fail with a chosen Facebook error.
struct InjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inject", abstract: "Make a person, app or token answer Graph calls with a Facebook error.",
        subcommands: [Add.self, List.self, Clear.self], defaultSubcommand: Add.self)

    struct Add: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Inject an error (the default subcommand).",
            discussion:
                "Errors: 190/460 (password-changed), 190/458 (app-removed), 190/463 (expired), 4 (app-rate-limit), "
                + "17 (user-rate-limit), 2 (transient), 200 (missing-permission).\nExample: gatehouse inject "
                + "--user alice@example.com --error 190/460 --times 1"
        )

        @Option(help: "A person: global id, app-scoped id or email.") var user: String?
        @Option(help: "An app id.") var app: String?
        @Option(help: "An access token (its text or its id).") var token: String?
        @Option(help: "The error, e.g. 190/460 or user-rate-limit.") var error: String?
        @Option(help: "How many calls fail (default: until cleared).") var times: Int?
        @Flag(
            name: .customLong("list"),
            help: "List the errors that can be injected (from --server's catalogue when given) and exit.")
        var listCatalogue = false
        @OptionGroup var server: AdminServerOptions

        func execute() async throws {
            if listCatalogue { return try await InjectCatalogue.print(server: server) }
            guard let error else { throw fail("name the error with --error (see `gatehouse inject --list`)") }
            let targets = [("user", user), ("app", app), ("token", token)].compactMap { kind, id in
                id.map { (kind, $0) }
            }
            guard targets.count == 1, let (kind, id) = targets.first else {
                throw fail("name exactly one of --user, --app or --token")
            }
            var body: [String: Any] = ["target": kind, "id": id, "error": error]
            if let times { body["times"] = times }
            let data = try await server.call("POST", "/injections", json: AdminServerOptions.body(body)).1
            if server.json { print(String(decoding: data, as: UTF8.self)); return }
            let record = AdminServerOptions.object(data)
            print(
                "injected \(record["error"] as? String ?? error) for \(kind) \(record["target_id"] as? String ?? id), "
                    + (times.map { "\($0) call(s)" } ?? "until cleared") + " (id \(record["id"] as? String ?? "?"))")
        }
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List injected errors.")
        @OptionGroup var server: AdminServerOptions

        func execute() async throws {
            let data = try await server.call("GET", "/injections").1
            if server.json { print(String(decoding: data, as: UTF8.self)); return }
            let items = AdminServerOptions.object(data)["data"] as? [[String: Any]] ?? []
            if items.isEmpty { print("no injected errors"); return }
            for item in items {
                let remaining = (item["remaining"] as? Int).map { "\($0) left" } ?? "until cleared"
                print(
                    "\(item["id"] as? String ?? "")  \(item["target"] as? String ?? "") "
                        + "\(item["target_id"] as? String ?? "")  \(item["error"] as? String ?? "")  \(remaining)"
                )
            }
        }
    }

    struct Clear: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "Clear one injected error, or all of them.")
        @Argument(help: "The injection's id (default: all).") var id: String?
        @OptionGroup var server: AdminServerOptions

        func execute() async throws {
            _ = try await server.call("DELETE", id.map { "/injections/" + AdminClient.escape($0) } ?? "/injections")
            print(id.map { "cleared \($0)" } ?? "cleared all injected errors")
        }
    }
}

/// `gatehouse export`: the whole emulator state as one JSON file.
struct ExportCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the emulator's whole state as JSON (to commit as test fixtures).")
    @Option(name: .shortAndLong, help: "File to write (default: standard output).") var output: String?
    @Flag(
        name: .customLong("include-private-keys"),
        help: "Also write the id_token signing keys' private halves (never commit such a file).")
    var includePrivateKeys = false
    @OptionGroup var server: AdminServerOptions

    func execute() async throws {
        let data = try await server.call("GET", includePrivateKeys ? "/state?include_private_keys=true" : "/state").1
        guard let output else { FileHandle.standardOutput.write(data); return }
        do { try data.write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
            throw fail("cannot write \(output): \(error.localizedDescription)")
        }
        FileHandle.standardError.write(Data("wrote \(output)\n".utf8))
    }
}

/// `gatehouse import`: replace the emulator's state with an export.
struct ImportCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Replace the emulator's whole state with an export file; ids stay the same.")
    @Argument(help: "The export file.") var file: String
    @OptionGroup var server: AdminServerOptions

    func execute() async throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw fail("cannot read \(file)") }
        let reply = AdminServerOptions.object(try await server.call("PUT", "/state", json: data).1)
        print(
            "imported \(reply["apps"] as? Int ?? 0) apps, \(reply["people"] as? Int ?? 0) people, \(reply["tokens"] as? Int ?? 0) tokens"
        )
    }
}
