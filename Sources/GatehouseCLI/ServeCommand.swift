import ArgumentParser
import Foundation
import GatehouseServer
import Logging
import NIOCore

/// `gatehouse serve`: the server, with SQLite in the data directory.
struct ServeCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Gatehouse server.")

    @Option(help: "Address to listen on (env GATEHOUSE_HOST; default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (env GATEHOUSE_PORT; default 8080).") var port: Int?
    @OptionGroup var data: DataOptions
    @Option(name: .customLong("public-url"), help: "URL clients reach the server at (env GATEHOUSE_PUBLIC_URL; default http://HOST:PORT).")
    var publicURL: String?
    @Option(help: "development or production (env GATEHOUSE_MODE; default development).") var mode: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (env GATEHOUSE_LOG_LEVEL; default info).")
    var logLevel: String?

    func execute() async throws {
        let modeName = mode ?? Environment.value("GATEHOUSE_MODE") ?? "development"
        guard let serverMode = ServerMode(rawValue: modeName) else { throw fail("--mode must be development or production, not \(modeName)") }
        let portValue: Int
        if let port { portValue = port } else if let env = Environment.value("GATEHOUSE_PORT") {
            guard let p = Int(env) else { throw fail("GATEHOUSE_PORT must be a number, not \(env)") }
            portValue = p
        } else { portValue = 8080 }
        guard (0...65535).contains(portValue) else { throw fail("--port must be between 0 and 65535") }
        var settings = GatehouseConfiguration(
            host: host ?? Environment.value("GATEHOUSE_HOST") ?? "127.0.0.1", port: portValue,
            dataDirectory: data.resolved, publicURL: publicURL ?? Environment.value("GATEHOUSE_PUBLIC_URL"), mode: serverMode)
        if let interval = Environment.value("GATEHOUSE_DEVICE_POLL_INTERVAL") {
            guard let seconds = Int(interval), (1...60).contains(seconds) else { throw fail("GATEHOUSE_DEVICE_POLL_INTERVAL must be 1-60 seconds") }
            settings.devicePollInterval = seconds
        }
        let configuration = settings
        var logger = Logger(label: "gatehouse")
        logger.logLevel = Logger.Level(rawValue: logLevel ?? Environment.value("GATEHOUSE_LOG_LEVEL") ?? "info") ?? .info
        do {
            try await GatehouseServerRunner.run(configuration: configuration, logger: logger) { boundPort, seed in
                var shown = configuration
                if configuration.port == 0 { shown.port = boundPort }
                // Written straight to the file handle so it is visible at once even when stdout is a pipe.
                FileHandle.standardOutput.write(Data(Banner.text(configuration: shown, seed: seed).utf8))
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw fail("port \(portValue) on \(configuration.host) is already in use; pick another with --port")
        }
    }
}

/// What `serve` prints once it listens.
enum Banner {
    static func text(configuration: GatehouseConfiguration, seed: DevSeed?) -> String {
        var out = "Gatehouse is listening on \(configuration.baseURL) (\(configuration.mode.rawValue) mode)\n"
        out += "Database: \(configuration.databasePath)\n"
        guard let seed else { return out + "\n" }
        out += """

        Demo app "\(seed.app.name)"
          app id:        \(seed.app.id)
          app secret:    \(seed.app.secret)
          client token:  \(seed.app.clientToken)
          redirect URIs: \(seed.app.redirectURIs.joined(separator: ", "))

        Test users (all friends with each other):

        """
        for user in seed.users {
            out += "  \(user.name.padding(toLength: 14, withPad: " ", startingAt: 0)) email \(user.email)  password \(user.password)\n"
        }
        out += """

        Open this URL in a browser to log in:
          \(seed.dialogURL)

        These facts are also in \(configuration.devSeedPath)

        """
        return out
    }
}
