import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseServer

/// `gatehouse scenario apply|check FILE`: bring a running server in line with a scenario file, or list how it
/// differs. The file is checked here first, so a bad one is reported with line and column without a server.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Apply a scenario file to a running server, or check it against one.",
        discussion:
            "The format is described in docs/scenarios/README.md. `serve --scenario FILE` loads one at start-up.",
        subcommands: [Apply.self, Check.self])

    struct Apply: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply", abstract: "Create what the file describes and correct what differs (idempotent).")
        @Argument(help: "The scenario file (YAML).") var file: String
        @OptionGroup var server: AdminServerOptions

        func execute() async throws {
            let reply = try await ScenarioCommand.send(file, check: false, server: server)
            if server.json { print(String(decoding: reply, as: UTF8.self)); return }
            let object = AdminServerOptions.object(reply)
            let changes = object["changes"] as? [String] ?? []
            print(
                changes.isEmpty
                    ? "\(file) already matches the server; nothing changed"
                    : "applied \(file): \(changes.count) change(s)")
            for change in changes { print("  \(change)") }
            for app in object["apps"] as? [[String: Any]] ?? [] {
                print(
                    "app \(app["key"] as? String ?? ""): id \(app["id"] as? String ?? ""), secret "
                        + "\(app["secret"] as? String ?? ""), client token \(app["client_token"] as? String ?? "")"
                )
            }
            for person in object["people"] as? [[String: Any]] ?? [] {
                print(
                    "person \(person["key"] as? String ?? ""): id \(person["id"] as? String ?? ""), \(person["email"] as? String ?? "")"
                )
            }
        }
    }

    struct Check: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: "List how the server differs from the file; exit status 1 when it does.")
        @Argument(help: "The scenario file (YAML).") var file: String
        @OptionGroup var server: AdminServerOptions

        func execute() async throws {
            let reply = try await ScenarioCommand.send(file, check: true, server: server)
            let changes = AdminServerOptions.object(reply)["changes"] as? [String] ?? []
            if server.json {
                print(String(decoding: reply, as: UTF8.self))
            } else if changes.isEmpty {
                print("\(file) matches the server")
            } else {
                print("\(changes.count) difference(s) between \(file) and the server:")
                for change in changes { print("  \(change)") }
            }
            // Like diff: scripts can tell "in sync" from "differs" by the status alone.
            if !changes.isEmpty { throw ExitCode(1) }
        }
    }

    /// Parses the file locally (pictures read next to it), then posts it with its pictures to the admin API.
    static func send(_ path: String, check: Bool, server: AdminServerOptions) async throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot read \(path)") }
        let yaml = String(decoding: data, as: UTF8.self)
        let collected = PictureCollector()
        let local = ScenarioParser.reading(path: path)
        do {
            _ = try ScenarioParser(file: path) { relative in collected.keep(relative, local.readFile(relative)) }.parse(
                yaml)
        } catch let errors as ScenarioErrors {
            throw report(errors)
        }
        var body: [String: Any] = ["yaml": yaml, "file": path]
        body["files"] = collected.files.mapValues { $0.base64EncodedString() }
        return try await server.call(
            "POST", check ? "/scenario?check=true" : "/scenario", json: AdminServerOptions.body(body)
        ).1
    }

    /// Reads and parses a file for `serve --scenario`.
    static func read(_ path: String) throws -> ScenarioFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail("cannot read scenario file \(path)")
        }
        do {
            return ScenarioFile(
                scenario: try ScenarioParser.reading(path: path).parse(String(decoding: data, as: UTF8.self)),
                file: path)
        } catch let errors as ScenarioErrors {
            throw report(errors)
        }
    }

    /// Prints every problem as `file:line:column: path: message` (the form editors jump to) and exits 1.
    static func report(_ errors: ScenarioErrors) -> ExitCode {
        FileHandle.standardError.write(Data((errors.description + "\n").utf8))
        return ExitCode(1)
    }

    /// What `serve` adds to its banner when it loaded a scenario.
    static func banner(_ file: ScenarioFile?) -> String {
        guard let file else { return "" }
        var out =
            "Scenario \(file.file) loaded (\(file.scenario.apps.count) apps, \(file.scenario.people.count) people, "
            + "\(file.scenario.tokens.count) tokens)\n"
        for app in file.scenario.apps { out += "  app \(app.key): id \(app.id)\n" }
        for person in file.scenario.people {
            out += "  person \(person.key): id \(person.id), email \(person.email), password \(person.password)\n"
        }
        return out + "\n"
    }
}

/// The pictures a scenario names, gathered while parsing so they can travel with the YAML.
private final class PictureCollector: @unchecked Sendable {
    private(set) var files: [String: Data] = [:]
    func keep(_ path: String, _ data: Data?) -> Data? {
        if let data { files[path] = data }
        return data
    }
}
