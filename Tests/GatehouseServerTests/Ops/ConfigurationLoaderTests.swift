import Foundation
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Testing

@Suite struct ConfigurationLoaderTests {
    /// A config file in the temporary directory; the caller removes it (`defer`) when done.
    static func file(_ yaml: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-config-\(UUID().uuidString).yaml"
        ).path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func defaultsWhenNothingIsGiven() throws {
        let loaded = try ConfigurationLoader().load()
        #expect(loaded.configuration.host == "127.0.0.1")
        #expect(loaded.configuration.port == 8080)
        #expect(loaded.configuration.mode == .development)
        #expect(loaded.configuration.limits == LimitsConfiguration())
        #expect(loaded.sources["port"] == .default)
    }

    @Test func flagsBeatEnvironmentBeatFileBeatDefaults() throws {
        let path = try Self.file(
            """
            host: 10.0.0.1
            port: 9000
            public_url: https://file.example
            log_level: debug
            trusted_proxies: [10.0.0.0/8, "192.168.1.1"]
            limits:
              login_attempts_per_account: 3
              login_window_seconds: 60
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try ConfigurationLoader(
            flags: ["port": "9002"],
            environment: [
                "GATEHOUSE_PORT": "9001", "GATEHOUSE_PUBLIC_URL": "https://env.example",
                "GATEHOUSE_LIMITS_LOGIN_WINDOW_SECONDS": "120", "UNRELATED": "x",
            ],
            filePath: path
        ).load()
        let c = loaded.configuration
        #expect(c.host == "10.0.0.1")  // file only
        #expect(c.port == 9002)  // flag > env > file
        #expect(c.publicURL == "https://env.example")  // env > file
        #expect(c.logLevel == "debug")
        #expect(c.trustedProxies == ["10.0.0.0/8", "192.168.1.1"])
        #expect(c.limits.loginAttemptsPerAccount == 3)  // nested file key
        #expect(c.limits.loginWindowSeconds == 120)  // env beats nested file key
        #expect(c.limits.loginAttemptsPerIP == 50)  // default
        #expect(loaded.sources["host"] == .file)
        #expect(loaded.sources["port"] == .flag)
        #expect(loaded.sources["public_url"] == .environment)
        #expect(loaded.sources["metrics"] == .default)
    }

    @Test func mistakesNameTheSettingAndWhereItCameFrom() throws {
        let typo = try Self.file("prot: 80\n")
        defer { try? FileManager.default.removeItem(atPath: typo) }
        #expect(throws: ConfigurationError("unknown setting prot in config file \(typo)")) {
            try ConfigurationLoader(filePath: typo).load()
        }
        #expect(throws: ConfigurationError("GATEHOUSE_PORT: must be a whole number from 0 to 65535, not eighty")) {
            try ConfigurationLoader(environment: ["GATEHOUSE_PORT": "eighty"]).load()
        }
        #expect(throws: ConfigurationError("--mode: must be development or production, not staging")) {
            try ConfigurationLoader(flags: ["mode": "staging"]).load()
        }
        #expect(throws: ConfigurationError("--trusted-proxy: 10.0.0/8x is not an IP address or CIDR range")) {
            try ConfigurationLoader(flags: ["trusted_proxies": "10.0.0/8x"]).load()
        }
        let broken = try Self.file("host: [unclosed\n")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader(filePath: broken).load() }
        #expect(throws: ConfigurationError("cannot read config file /nonexistent/gatehouse.yaml")) {
            try ConfigurationLoader(filePath: "/nonexistent/gatehouse.yaml").load()
        }
    }

    @Test func aPostgreSQLURLImpliesProductionUnlessTheModeIsChosen() throws {
        let url = "postgres://gatehouse:s3cr3t-pw@db.internal:5432/gatehouse"
        let implied = try ConfigurationLoader(environment: ["GATEHOUSE_DATABASE_URL": url]).load()
        #expect(implied.configuration.mode == .production)
        #expect(implied.configuration.databaseURL == url)
        #expect(implied.configuration.usesPostgreSQL)
        let chosen = try ConfigurationLoader(flags: ["database": url, "mode": "development"]).load()
        #expect(chosen.configuration.mode == .development)
    }

    @Test func printedConfigMasksSecretsAndShowsSources() throws {
        let path = try Self.file("port: 9000\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try ConfigurationLoader(
            flags: [
                "database": "postgres://gatehouse:s3cr3t-pw@db.internal/gh?sslmode=require&password=other-s3cr3t",
                "host": "0.0.0.0",
            ],
            environment: ["GATEHOUSE_LOG_LEVEL": "warning"], filePath: path
        ).load()
        let text = loaded.printed()
        #expect(!text.contains("s3cr3t"))
        #expect(
            text.contains(
                "database: \"postgres://gatehouse:*****@db.internal/gh?sslmode=require&password=*****\"  # --database\n"
            ))
        #expect(text.contains("port: 9000  # port in the config file\n"))
        #expect(text.contains("log_level: warning  # GATEHOUSE_LOG_LEVEL\n"))
        #expect(text.contains("host: 0.0.0.0  # --host\n"))
        #expect(text.contains("mode: production  # default\n"))
        #expect(text.contains("# mode is production because the database is PostgreSQL\n"))
        #expect(text.contains("limits:\n  login_attempts_per_account: 10  # default\n"))
        // The printed form is itself a valid config file giving the same configuration (secrets aside).
        let printed = try Self.file(text.replacingOccurrences(of: "database: postgres", with: "# database: postgres"))
        defer { try? FileManager.default.removeItem(atPath: printed) }
        let reread = try ConfigurationLoader(filePath: printed).load()
        #expect(reread.configuration.port == 9000)
        #expect(reread.configuration.host == "0.0.0.0")
        #expect(reread.configuration.limits == loaded.configuration.limits)
    }
}
