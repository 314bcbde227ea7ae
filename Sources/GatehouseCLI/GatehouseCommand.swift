import GatehouseCore
import GatehouseStorage
import ArgumentParser
import Foundation
import GatehouseServer

/// The `gatehouse` command: run the server and manage apps and people.
public struct GatehouseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gatehouse",
        abstract: "A Facebook Login compatible login server, emulator and toolkit.",
        version: GatehouseVersion.description,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, AppsCommand.self, UsersCommand.self, TokensCommand.self,
            KeysCommand.self,
            AdminCommand.self, SeedCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, TokenCommand.self, GraphCommand.self,
            PermissionsCommand.self,
            ClockCommand.self, InjectCommand.self, ExportCommand.self, ImportCommand.self, ScenarioCommand.self,
            SignedRequestCommand.self, TokenCacheCommand.self, DialogCommand.self, BenchReferenceCommand.self,
            BenchCommand.self,
            LogsCommand.self, EventsCommand.self,
        ]
    )
    public init() {}
}

/// A leaf command's work. `main.swift` calls `execute()` directly: with ArgumentParser 1.8 on Linux the
/// protocol extension's synchronous `run()` (which prints help) wins over an async `run()` as the witness.
public protocol ExecutableCommand {
    func execute() async throws
}

/// Where the database lives; shared by every command that touches it.
struct DataOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: "Folder for gatehouse.sqlite (env GATEHOUSE_DATA_DIR; default ./.gatehouse).")
    var dataDir: String?

    @Option(
        name: .customLong("database"),
        help:
            "postgres://user@host:port/db or a SQLite file path (env GATEHOUSE_DATABASE_URL; default DATA_DIR/gatehouse.sqlite)."
    )
    var database: String?

    var resolved: String { dataDir ?? Environment.value("GATEHOUSE_DATA_DIR") ?? ".gatehouse" }

    /// The database to open: `--database`, else `GATEHOUSE_DATABASE_URL`, else nil (SQLite in the data folder).
    func resolvedDatabase() throws -> DatabaseLocation? {
        guard let value = database ?? Environment.value("GATEHOUSE_DATABASE_URL") else { return nil }
        do {
            return try DatabaseLocation(parsing: value)
        } catch StorageError.unavailable(let message) {
            throw fail(message)
        }
    }
}

/// Environment variables, read in one place.
enum Environment {
    static func value(_ name: String) -> String? {
        guard let v = ProcessInfo.processInfo.environment[name], !v.isEmpty else { return nil }
        return v
    }
}

/// A failure the person can act on: printed as one line, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Prints an error plainly and exits non-zero, instead of ArgumentParser's usage dump.
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("gatehouse: \(message)\n".utf8))
    return ExitCode(1)
}

/// Compact, stable JSON for `--json` output.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
