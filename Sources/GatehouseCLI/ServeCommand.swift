import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseServer
import Logging
import NIOCore

/// `gatehouse serve`: the server, on SQLite in the data directory or on `--database`. Settings come from
/// flags > `GATEHOUSE_*` environment > `--config` YAML file > defaults.
struct ServeCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Gatehouse server.")

    @Option(help: "YAML config file (env GATEHOUSE_CONFIG). Keys as in --print-config.") var config: String?
    @Option(help: "Address to listen on (env GATEHOUSE_HOST; default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (env GATEHOUSE_PORT; default 8080).") var port: String?
    @Option(
        name: .customLong("data-dir"),
        help: "Folder for gatehouse.sqlite (env GATEHOUSE_DATA_DIR; default ./.gatehouse).")
    var dataDir: String?
    @Option(
        name: .customLong("public-url"),
        help: "URL clients reach the server at (env GATEHOUSE_PUBLIC_URL; default http://HOST:PORT).")
    var publicURL: String?
    @Option(
        help:
            "development or production (env GATEHOUSE_MODE; default development, production with a postgres:// database)."
    )
    var mode: String?
    @Option(
        help: "Database URL, e.g. postgres://user@host/db (env GATEHOUSE_DATABASE_URL; default SQLite in the data dir)."
    )
    var database: String?
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS (env GATEHOUSE_TLS_CERT).")
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key for --tls-cert (env GATEHOUSE_TLS_KEY).") var tlsKey:
        String?
    @Option(
        name: .customLong("master-key-file"),
        help: "32-byte key (raw, base64 or hex) that encrypts signing keys at rest (env GATEHOUSE_MASTER_KEY_FILE).")
    var masterKeyFile: String?
    @Option(
        name: .customLong("trusted-proxy"),
        help:
            "Address or CIDR whose X-Forwarded-For/-Proto are believed; repeatable (env GATEHOUSE_TRUSTED_PROXIES, comma-separated)."
    )
    var trustedProxy: [String] = []
    @Option(
        name: .customLong("max-body-bytes"),
        help: "Largest request body (env GATEHOUSE_MAX_BODY_BYTES; default 1048576).")
    var maxBodyBytes: String?
    @Flag(
        name: .customLong("bench-routes"),
        help: "Serve /bench/hello and /bench/id_token for scripts/bench (env GATEHOUSE_BENCH_ROUTES).")
    var benchRoutes = false
    @Flag(
        name: .customLong("dev-allow-remote"),
        help: ArgumentHelp(
            "Let development mode listen beyond loopback (env GATEHOUSE_DEV_ALLOW_REMOTE). Anyone who can connect "
                + "can log in as anyone: trusted networks only.")
    )
    var devAllowRemote = false
    @Flag(
        name: .customLong("allow-state-replace"),
        help:
            "Let production's admin API reset or import the whole state (env GATEHOUSE_ALLOW_STATE_REPLACE). Each wipes every person and app."
    )
    var allowStateReplace = false
    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error (env GATEHOUSE_LOG_LEVEL; default info).")
    var logLevel: String?
    @Option(
        name: .customLong("log-format"),
        help:
            "text (lines on standard error) or json (one object per line on standard output, no secrets) (env GATEHOUSE_LOG_FORMAT; default text)."
    )
    var logFormat: String?
    @Option(
        help: ArgumentHelp(
            "Record requests in the journal (/console/activity, gatehouse logs): true, false or auto (env "
                + "GATEHOUSE_JOURNAL; default auto: on in development, off in production).")
    )
    var journal: String?
    @Option(
        name: .customLong("journal-size"),
        help: "Entries the in-memory journal keeps (env GATEHOUSE_JOURNAL_SIZE; default 1000).")
    var journalSize: String?
    @Flag(
        name: .customLong("journal-table"),
        help: ArgumentHelp(
            "Also keep journal entries in the database's request_journal table, with retention (env "
                + "GATEHOUSE_JOURNAL_TABLE; see journal_retention_hours, journal_max_rows).")
    )
    var journalTable = false
    @Option(
        help:
            "Scenario file to load into the empty database instead of the dev seed (env GATEHOUSE_SCENARIO; see docs/scenarios)."
    )
    var scenario: String?
    @Option(
        name: .customLong("event-sinks"),
        help: ArgumentHelp(
            "HTTP endpoints that receive events, as JSON: [{\"url\":…,\"secret\" or \"secret_file\":…,\"types\":[…]}] "
                + "(env GATEHOUSE_EVENTS_SINKS; file key events.sinks; see docs/OPERATIONS.md).")
    )
    var eventSinks: String?
    @Option(
        name: .customLong("otlp-endpoint"),
        help: ArgumentHelp(
            "Send traces over OTLP/HTTP to this collector, e.g. http://127.0.0.1:4318 (env GATEHOUSE_OTLP_ENDPOINT, "
                + "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; default off; "
                + "see docs/OPERATIONS.md).")
    )
    var otlpEndpoint: String?
    @Flag(name: .customLong("print-config"), help: "Print the effective configuration (secrets masked) and exit.")
    var printConfig = false

    /// The flags actually given, by setting key.
    var flagValues: [String: String] {
        var values: [String: String] = [:]
        values["host"] = host
        values["port"] = port
        values["data_dir"] = dataDir
        values["public_url"] = publicURL
        values["mode"] = mode
        values["database"] = database
        values["tls_cert"] = tlsCert
        values["tls_key"] = tlsKey
        values["master_key_file"] = masterKeyFile
        if !trustedProxy.isEmpty { values["trusted_proxies"] = trustedProxy.joined(separator: ",") }
        values["max_body_bytes"] = maxBodyBytes
        if benchRoutes { values["bench_routes"] = "true" }
        if devAllowRemote { values["dev_allow_remote"] = "true" }
        if allowStateReplace { values["allow_state_replace"] = "true" }
        values["log_level"] = logLevel
        values["journal"] = journal
        values["journal_size"] = journalSize
        if journalTable { values["journal_table"] = "true" }
        values["events.sinks"] = eventSinks
        values["otlp_endpoint"] = otlpEndpoint
        return values
    }

    func execute() async throws {
        let environment = ProcessInfo.processInfo.environment
        let loader = ConfigurationLoader(
            flags: flagValues, environment: environment, filePath: config ?? Environment.value("GATEHOUSE_CONFIG"))
        let loaded: ConfigurationLoader.Loaded
        do {
            loaded = try loader.load()
        } catch let error as ConfigurationError {
            throw fail(error.message)
        }
        if printConfig {
            print(loaded.printed(), terminator: "")
            return
        }
        let configuration = loaded.configuration
        let format: LogFormat
        do {
            format = try LogFormat.resolve(flag: logFormat, environment: environment)
        } catch let error as CLIError {
            throw fail(error.description)
        }
        if format == .json { LogFormat.bootstrapJSON() }
        var logger = Logger(label: "gatehouse")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
        // A bad scenario file fails before the port is bound, with every problem's line and column.
        let scenarioFile = try (scenario ?? Environment.value("GATEHOUSE_SCENARIO")).map(ScenarioCommand.read)
        do {
            try await GatehouseServerRunner.run(configuration: configuration, logger: logger, scenario: scenarioFile) {
                [logger] boundPort, seed in
                var shown = configuration
                if configuration.port == 0 { shown.port = boundPort }
                // Standard output carries only JSON lines in that format: the banner becomes one record, without
                // the demo app's secret and the test users' passwords (they stay in the dev seed file).
                if format == .json {
                    logger.notice("listening", metadata: Banner.metadata(configuration: shown, seed: seed))
                    return
                }
                // Written straight to the file handle so it is visible at once even when stdout is a pipe.
                FileHandle.standardOutput.write(
                    Data((Banner.text(configuration: shown, seed: seed) + ScenarioCommand.banner(scenarioFile)).utf8))
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw fail(
                "port \(configuration.port) on \(configuration.host) is already in use; pick another with --port")
        } catch StorageError.unavailable(let message) {
            throw fail(message)
        } catch let error as UnsafeConfigurationError {
            throw fail(error.description)
        } catch let error as ConfigurationError {
            throw fail(error.message)
        } catch let error as ScenarioErrors {
            throw fail(error.description)
        } catch let error as ScenarioLoader.NotEmptyError {
            throw fail(error.description)
        }
    }
}

/// What `serve` prints once it listens.
enum Banner {
    /// The banner's facts as a `--log-format json` record: where, which mode, which database (its URL's password
    /// masked) and, in development, the dev seed's app id and the file that holds the rest.
    static func metadata(configuration: GatehouseConfiguration, seed: DevSeed?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "url": "\(configuration.baseURL)", "mode": "\(configuration.mode.rawValue)",
            "database": "\(configuration.databaseLocation)",
        ]
        if let seed {
            metadata["dev_seed_app"] = "\(seed.app.id)"
            metadata["dev_seed_file"] = "\(configuration.devSeedPath)"
        }
        return metadata
    }

    static func text(configuration: GatehouseConfiguration, seed: DevSeed?) -> String {
        var out = "Gatehouse is listening on \(configuration.baseURL) (\(configuration.mode.rawValue) mode)\n"
        out += "Database: \(configuration.databaseLocation)\n"
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
            out +=
                "  \(user.name.padding(toLength: 14, withPad: " ", startingAt: 0)) email \(user.email)  password \(user.password)\n"
        }
        out += """

            Open this URL in a browser to log in:
              \(seed.dialogURL)

            These facts are also in \(configuration.devSeedPath)

            """
        return out
    }
}
