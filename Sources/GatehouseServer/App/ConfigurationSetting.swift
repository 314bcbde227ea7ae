import GatehouseCore
import GatehouseProtocol
import GatehouseStorage
import Foundation

/// One configurable setting: its key, how to parse it into a ``GatehouseConfiguration`` and how to show it.
package struct ConfigurationSetting: Sendable {
    /// File key (`public_url`, `limits.login_window_seconds`).
    package let key: String
    /// Whether `--print-config` masks it.
    package let isSecret: Bool
    let apply: @Sendable (String, inout GatehouseConfiguration) throws -> Void
    let show: @Sendable (GatehouseConfiguration) -> String?
    /// Standard variables read when ``environmentName`` is not set, the first one set winning (OpenTelemetry's
    /// `OTEL_*` for traces), each with how its value becomes this setting's.
    var standardEnvironment: [StandardVariable] = []

    /// A variable other programs also read, and how its value becomes the setting's.
    struct StandardVariable: Sendable {
        let name: String
        var value: @Sendable (String) -> String = { $0 }
    }

    /// `GATEHOUSE_` + the key in upper snake case (dots become underscores); the database is `GATEHOUSE_DATABASE_URL`.
    package var environmentName: String {
        if key == "database" { return "GATEHOUSE_DATABASE_URL" }
        return "GATEHOUSE_" + key.replacingOccurrences(of: ".", with: "_").uppercased()
    }

    /// `--public-url`; limits have no flags (file or environment only).
    package var flagName: String {
        key == "trusted_proxies" ? "--trusted-proxy" : "--" + key.replacingOccurrences(of: "_", with: "-")
    }

    func describe(_ source: ConfigurationLoader.Source) -> String {
        switch source {
        case .default: "default \(key)"
        case .file: "\(key) in the config file"
        case .environment: ([environmentName] + standardEnvironment.map(\.name)).joined(separator: " or ")
        case .flag: flagName
        }
    }

    package static func named(_ key: String) -> ConfigurationSetting? { all.first { $0.key == key } }

    /// Every setting, in the order `--print-config` lists them.
    package static let all: [ConfigurationSetting] = [
        text("host", \.host),
        int("port", \.port, range: 0...65535),
        text("data_dir", \.dataDirectory),
        optionalText("public_url", \.publicURL) { value in
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                ["http", "https"].contains(scheme), url.host != nil
            else {
                throw ConfigurationError("must be an http:// or https:// URL, not \(value)")
            }
        },
        ConfigurationSetting(
            key: "mode", isSecret: false,
            apply: { value, c in
                guard let mode = ServerMode(rawValue: value.lowercased()) else {
                    throw ConfigurationError("must be development or production, not \(value)")
                }
                c.mode = mode
            }, show: { $0.mode.rawValue }),
        ConfigurationSetting(
            key: "database", isSecret: true,
            apply: { value, c in
                let lower = value.lowercased()
                guard lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") || lower.hasPrefix("sqlite:")
                else {
                    throw ConfigurationError("must be a postgres:// URL (or sqlite:PATH), not \(SecretMask.url(value))")
                }
                do {
                    c.database = try DatabaseLocation(parsing: value)
                } catch let error as StorageError {
                    if case .unavailable(let message) = error { throw ConfigurationError(message) }
                    throw ConfigurationError("is not a usable database location")
                }
            }, show: { $0.databaseURL.map(SecretMask.url) }),
        optionalText("tls_cert", \.tlsCertificatePath),
        optionalText("tls_key", \.tlsKeyPath),
        optionalText("master_key_file", \.masterKeyFile),
        ConfigurationSetting(
            key: "trusted_proxies", isSecret: false,
            apply: { value, c in
                let entries = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                    !$0.isEmpty
                }
                for entry in entries where IPRange(entry) == nil {
                    throw ConfigurationError("\(entry) is not an IP address or CIDR range")
                }
                c.trustedProxies = entries
            }, show: { $0.trustedProxies.joined(separator: ",") }),
        int("max_body_bytes", \.maxBodyBytes, range: 1024...(1 << 30)),
        ConfigurationSetting(
            key: "default_graph_version", isSecret: false,
            apply: { value, c in
                guard GraphAPIVersion.isReleased(value) else {
                    throw ConfigurationError(
                        "\(value) is not a Graph API version Facebook released (e.g. \(GraphAPIVersion.current))")
                }
                c.defaultGraphVersion = value
            }, show: { $0.defaultGraphVersion }),
        bool("metrics", \.metricsEnabled),
        ConfigurationSetting(
            key: "metrics_token", isSecret: true, apply: { value, c in c.metricsToken = value.isEmpty ? nil : value },
            show: { $0.metricsToken.map { _ in "*****" } }),
        bool("bench_routes", \.benchRoutes),
        ConfigurationSetting(
            key: "log_level", isSecret: false,
            apply: { value, c in
                let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
                guard levels.contains(value.lowercased()) else {
                    throw ConfigurationError("must be one of \(levels.joined(separator: ", "))")
                }
                c.logLevel = value.lowercased()
            }, show: { $0.logLevel }),
        ConfigurationSetting(
            key: "otlp_endpoint", isSecret: false,
            apply: { value, c in
                try TracingConfiguration.validate(endpoint: value)
                c.tracing.otlpEndpoint = value
            }, show: { $0.tracing.otlpEndpoint.map(SecretMask.url) },
            standardEnvironment: [
                StandardVariable(name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
                StandardVariable(name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: TracingConfiguration.endpoint(fromBase:)),
            ]),
        ConfigurationSetting(
            key: "otlp_service_name", isSecret: false,
            apply: { value, c in
                guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw ConfigurationError("must not be empty")
                }
                c.tracing.serviceName = value
            }, show: { $0.tracing.serviceName }, standardEnvironment: [StandardVariable(name: "OTEL_SERVICE_NAME")]),
        int("device_poll_interval", \.devicePollInterval, range: 1...60),
        bool("dev_allow_remote", \.devAllowRemote),
        bool("allow_state_replace", \.allowStateReplace),
        ConfigurationSetting(
            key: "journal", isSecret: false,
            apply: { value, c in
                switch value.lowercased() {
                case "true", "yes", "on", "1": c.journal = true
                case "false", "no", "off", "0": c.journal = false
                case "", "auto": c.journal = nil
                default: throw ConfigurationError("must be true, false or auto, not \(value)")
                }
            }, show: { "\($0.journalEnabled)" }),
        int("journal_size", \.journalSize, range: 10...1_000_000),
        bool("journal_table", \.journalTable),
        int("journal_retention_hours", \.journalRetentionHours, range: 1...24 * 366),
        int("journal_max_rows", \.journalMaxRows, range: 100...100_000_000),
        ConfigurationSetting(
            key: "signup", isSecret: false,
            apply: { value, c in
                guard let mode = SignUpMode(rawValue: value.lowercased()) else {
                    throw ConfigurationError("must be open, invitation or closed, not \(value)")
                }
                c.signUp = mode
            }, show: { $0.signUp?.rawValue ?? ($0.isDevelopment ? "open" : "closed") }),
        ConfigurationSetting(
            key: "password_cost", isSecret: false,
            apply: { value, c in
                let text = value.trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.lowercased() == "auto" {
                    c.passwordCost = nil
                    return
                }
                let range = PasswordCost.minimum...PasswordCost.maximum
                guard let cost = Int(text), range.contains(cost) else {
                    throw ConfigurationError(
                        "must be auto or a bcrypt cost from \(range.lowerBound) to \(range.upperBound), not \(value)")
                }
                c.passwordCost = cost
            }, show: { "\($0.effectivePasswordCost)" }),
        text("mail.from", \.mail.from),
        text("mail.service_name", \.mail.serviceName),
        optionalText("mail.sendmail_command", \.mail.sendmailCommand),
        optionalText("mail.templates_dir", \.mail.templatesDirectory),
        int("mail.retention_days", \.mail.retentionDays, range: 1...3660),
        ConfigurationSetting(
            key: "events.sinks", isSecret: true,
            apply: { value, c in c.eventSinks = try EventSinkConfiguration.parseList(value) },
            show: { c in
                c.eventSinks.isEmpty
                    ? "" : JSONValue.array(c.eventSinks.map(\.maskedJSON)).serialized()
            }),
        int("events.retention_days", \.eventsRetentionDays, range: 1...3660),
        int("events.max_rows", \.eventsMaxRows, range: 1000...1_000_000_000),
        ConfigurationSetting(
            key: "outbound.allowed_networks", isSecret: false,
            apply: { value, c in
                let entries = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                    !$0.isEmpty
                }
                for entry in entries where IPRange(entry) == nil {
                    throw ConfigurationError("\(entry) is not an IP address or CIDR range")
                }
                c.outbound.allowedNetworks = entries
            }, show: { $0.outbound.allowedNetworks.joined(separator: ",") }),
        optionalText("outbound.ca_file", \.outbound.caFile) { _ = try OutboundTrust.certificates(inFile: $0) },
        int("limits.login_attempts_per_account", \.limits.loginAttemptsPerAccount, range: 0...1_000_000),
        int("limits.login_attempts_per_ip", \.limits.loginAttemptsPerIP, range: 0...1_000_000),
        int("limits.login_window_seconds", \.limits.loginWindowSeconds, range: 1...86_400 * 30),
        int("limits.login_attempts_per_ipv6_48", \.limits.loginAttemptsPerIPv6Slash48, range: 0...1_000_000),
        int(
            "limits.login_attempts_per_account_all_networks", \.limits.loginAttemptsPerAccountAllNetworks,
            range: 0...1_000_000),
        int("limits.login_account_window_seconds", \.limits.loginAccountWindowSeconds, range: 1...86_400 * 30),
        int("limits.login_slowdown_max_seconds", \.limits.loginSlowdownMaxSeconds, range: 1...86_400),
        int("limits.login_code_attempts_per_account", \.limits.loginCodeAttemptsPerAccount, range: 0...1_000_000),
        int("limits.account_mail_per_network", \.limits.accountMailPerNetwork, range: 0...1_000_000),
        int("limits.account_mail_per_ipv6_48", \.limits.accountMailPerIPv6Slash48, range: 0...1_000_000),
        int("limits.account_mail_per_recipient", \.limits.accountMailPerRecipient, range: 0...1_000_000),
        int("limits.app_calls_per_window", \.limits.appCallsPerWindow, range: 0...1_000_000_000),
        int("limits.user_calls_per_window", \.limits.userCallsPerWindow, range: 0...1_000_000_000),
        int("limits.api_window_seconds", \.limits.apiWindowSeconds, range: 1...86_400 * 30),
        int("limits.token_endpoint_calls_per_ip", \.limits.tokenEndpointCallsPerIP, range: 0...1_000_000_000),
        int("limits.device_logins_per_ip", \.limits.deviceLoginsPerIP, range: 0...1_000_000_000),
        int("limits.device_logins_per_app", \.limits.deviceLoginsPerApp, range: 0...1_000_000_000),
        int("limits.device_login_window_seconds", \.limits.deviceLoginWindowSeconds, range: 1...86_400 * 30),
        int("limits.test_users_per_app", \.limits.testUsersPerApp, range: 0...1_000_000),
        int("limits.test_user_creations_per_app", \.limits.testUserCreationsPerApp, range: 0...1_000_000_000),
        int("limits.test_user_tokens_per_app", \.limits.testUserTokensPerApp, range: 0...1_000_000_000),
        int("limits.test_user_window_seconds", \.limits.testUserWindowSeconds, range: 1...86_400 * 30),
        int("limits.batch_substitution_bytes", \.limits.batchSubstitutionBytes, range: 1024...(1 << 30)),
        int("limits.batch_answer_bytes", \.limits.batchAnswerBytes, range: 1024...(1 << 30)),
    ]

    private static func text(_ key: String, _ path: any WritableKeyPath<GatehouseConfiguration, String> & Sendable)
        -> ConfigurationSetting
    {
        ConfigurationSetting(
            key: key, isSecret: false, apply: { value, c in c[keyPath: path] = value }, show: { $0[keyPath: path] })
    }

    private static func optionalText(
        _ key: String, _ path: any WritableKeyPath<GatehouseConfiguration, String?> & Sendable,
        validate: @escaping @Sendable (String) throws -> Void = { _ in }
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            key: key, isSecret: false,
            apply: { value, c in
                try validate(value)
                c[keyPath: path] = value
            }, show: { $0[keyPath: path] })
    }

    private static func int(
        _ key: String, _ path: any WritableKeyPath<GatehouseConfiguration, Int> & Sendable, range: ClosedRange<Int>
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            key: key, isSecret: false,
            apply: { value, c in
                guard let number = Int(value.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
                    throw ConfigurationError(
                        "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)")
                }
                c[keyPath: path] = number
            }, show: { "\($0[keyPath: path])" })
    }

    private static func bool(_ key: String, _ path: any WritableKeyPath<GatehouseConfiguration, Bool> & Sendable)
        -> ConfigurationSetting
    {
        ConfigurationSetting(
            key: key, isSecret: false,
            apply: { value, c in
                switch value.lowercased() {
                case "true", "yes", "on", "1": c[keyPath: path] = true
                case "false", "no", "off", "0": c[keyPath: path] = false
                default: throw ConfigurationError("must be true or false, not \(value)")
                }
            }, show: { "\($0[keyPath: path])" })
    }
}

/// Hides secrets in values that are printed or logged.
package enum SecretMask {
    /// `postgres://user:secret@host/db?password=x` → `postgres://user:*****@host/db?password=*****`.
    package static func url(_ value: String) -> String {
        guard var parts = URLComponents(string: value) else { return "*****" }
        if parts.password != nil { parts.password = "*****" }
        parts.queryItems = parts.queryItems?.map { item in
            let name = item.name.lowercased()
            let secret =
                name.contains("password") || name.contains("secret") || name.contains("key") || name.contains("token")
            return secret ? URLQueryItem(name: item.name, value: "*****") : item
        }
        return parts.string ?? "*****"
    }
}

extension ConfigurationLoader.Loaded {
    /// The effective configuration as YAML, one setting a line with where it came from; secrets masked.
    /// Feeding the output back as a config file reproduces the configuration.
    package func printed() -> String {
        var out = "# Effective Gatehouse configuration (precedence: flags > environment > file > defaults)\n"
        var section = ""
        for setting in ConfigurationSetting.all {
            let parts = setting.key.split(separator: ".")
            var name = setting.key, indent = ""
            if parts.count == 2 {
                if section != String(parts[0]) {
                    section = String(parts[0])
                    out += "\(section):\n"
                }
                name = String(parts[1]); indent = "  "
            }
            let value = setting.show(configuration)
            let rendered = value.map { $0.isEmpty ? "\"\"" : Self.yamlScalar($0) } ?? "null"
            let source = sources[setting.key] ?? .default
            out += "\(indent)\(name): \(rendered)  # \(source == .default ? "default" : setting.describe(source))\n"
        }
        if configuration.usesPostgreSQL && sources["mode"] == .default {
            out += "# mode is production because the database is PostgreSQL\n"
        }
        return out
    }

    private static func yamlScalar(_ value: String) -> String {
        let plain = value.allSatisfy { $0.isLetter || $0.isNumber || "._/-:@*,".contains($0) } && !value.hasPrefix("*")
        return plain
            ? value
            : "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
    }
}
