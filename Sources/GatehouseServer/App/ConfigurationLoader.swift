import GatehouseCore
import Foundation
import Yams

/// Builds a ``GatehouseConfiguration`` from its four sources, in rising precedence:
/// built-in defaults < YAML config file < `GATEHOUSE_*` environment variables < command-line flags.
///
/// Every setting has one name used everywhere: `public_url` in the file, `GATEHOUSE_PUBLIC_URL` in the
/// environment, `--public-url` on the command line (see ``ConfigurationSetting/all``). Nested file sections
/// flatten with dots (`limits:` / `login_attempts_per_account:` is `limits.login_attempts_per_account`,
/// env `GATEHOUSE_LIMITS_LOGIN_ATTEMPTS_PER_ACCOUNT`). Unknown keys and bad values are errors that name the
/// setting and where it came from, so a typo never silently falls back to a default.
package struct ConfigurationLoader: Sendable {
    /// Where a value came from, shown by `gatehouse serve --print-config`.
    package enum Source: String, Sendable, Comparable {
        case `default`, file, environment, flag
        package static func < (a: Source, b: Source) -> Bool { a.order < b.order }
        private var order: Int { [.default: 0, .file: 1, .environment: 2, .flag: 3][self]! }
    }

    /// The outcome: the configuration and, per setting key, the source that decided it.
    package struct Loaded: Sendable {
        package var configuration: GatehouseConfiguration
        package var sources: [String: Source]
    }

    /// Flag values by setting key (`public_url`), only for flags actually given.
    package var flags: [String: String]
    /// The process environment (only `GATEHOUSE_*` names are read, and the few standard names a setting lists in
    /// ``ConfigurationSetting/standardEnvironment``, such as `OTEL_EXPORTER_OTLP_ENDPOINT`).
    package var environment: [String: String]
    /// Path of the YAML file; nil reads none.
    package var filePath: String?

    package init(flags: [String: String] = [:], environment: [String: String] = [:], filePath: String? = nil) {
        self.flags = flags
        self.environment = environment
        self.filePath = filePath
    }

    /// Resolves every setting.
    /// - Throws: ``ConfigurationError`` naming the file, variable or flag at fault.
    package func load() throws -> Loaded {
        var layers: [(Source, [String: String])] = []
        if let filePath { layers.append((.file, try Self.readFile(filePath))) }
        var env: [String: String] = [:]
        for setting in ConfigurationSetting.all {
            if let value = environment[setting.environmentName], !value.isEmpty {
                env[setting.key] = value
            } else if let found = setting.standardEnvironment.lazy.compactMap({ standard in
                environment[standard.name].flatMap { $0.isEmpty ? nil : standard.value($0) }
            }).first {
                env[setting.key] = found
            }
        }
        layers.append((.environment, env))
        for key in flags.keys where ConfigurationSetting.named(key) == nil {
            throw ConfigurationError("unknown flag setting \(key)")
        }
        layers.append((.flag, flags))

        var configuration = GatehouseConfiguration()
        var sources: [String: Source] = [:]
        for setting in ConfigurationSetting.all { sources[setting.key] = .default }
        for (source, values) in layers {
            for setting in ConfigurationSetting.all {
                guard let value = values[setting.key] else { continue }
                do {
                    try setting.apply(value, &configuration)
                } catch let error as ConfigurationError {
                    throw ConfigurationError("\(setting.describe(source)): \(error.message)")
                }
                sources[setting.key] = source
            }
        }
        // A PostgreSQL URL implies production unless the mode was chosen explicitly.
        if configuration.usesPostgreSQL, sources["mode"] == .default {
            configuration.mode = .production
        }
        return Loaded(configuration: configuration, sources: sources)
    }

    /// Reads a YAML mapping and flattens it to setting keys. Lists become comma-separated values.
    static func readFile(_ path: String) throws -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("cannot read config file \(path)")
        }
        let document: Any?
        do {
            document = try Yams.load(yaml: text)
        } catch {
            throw ConfigurationError("config file \(path) is not valid YAML: \(String(describing: error).prefix(200))")
        }
        guard let document else { return [:] }
        guard let mapping = document as? [String: Any] else {
            throw ConfigurationError("config file \(path) must be a mapping of settings")
        }
        var flat: [String: String] = [:]
        try flatten(mapping, prefix: "", into: &flat, path: path)
        return flat
    }

    private static func flatten(
        _ mapping: [String: Any], prefix: String, into flat: inout [String: String], path: String
    ) throws {
        for (rawKey, value) in mapping {
            let key = prefix + rawKey.replacingOccurrences(of: "-", with: "_")
            if let nested = value as? [String: Any] {
                try flatten(nested, prefix: key + ".", into: &flat, path: path)
                continue
            }
            guard ConfigurationSetting.named(key) != nil else {
                throw ConfigurationError("unknown setting \(key) in config file \(path)")
            }
            if let list = value as? [Any], list.contains(where: { $0 is [String: Any] }),
                JSONSerialization.isValidJSONObject(list),
                let json = try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])
            {
                // A list of mappings (`events.sinks`) is handed to its setting as JSON.
                flat[key] = String(decoding: json, as: UTF8.self)
            } else if let list = value as? [Any] {
                flat[key] = list.map { "\($0)" }.joined(separator: ",")
            } else if value is NSNull {
                continue
            } else {
                flat[key] = "\(value)"
            }
        }
    }
}
