import Foundation
import GatehouseProtocol
import Logging

/// `serve --log-format json`: each log record as one JSON object on one line of standard output, which is what
/// container platforms and log shippers collect. Keys: `time` (ISO 8601, UTC, milliseconds), `level`, `label`,
/// `message`, then the record's metadata (sorted), then `source`.
///
/// No secrets: the server's own records carry ids, never credentials, and a metadata key that names one
/// (``redactedKeys``, or any key containing `secret` or `password`) has its value replaced by `[redacted]`, so a
/// library or a future line that logs one does not put it in the collected stream.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// Receives each finished line, newline included; ``StandardOutputLines/write(_:)`` in the server.
    let write: @Sendable (String) -> Void
    /// The records' clock; the wall clock outside tests.
    let now: @Sendable () -> Date

    init(label: String, write: @escaping @Sendable (String) -> Void, now: @escaping @Sendable () -> Date = { Date() }) {
        self.label = label
        self.write = write
        self.now = now
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // Later sources win, as in StreamLogHandler: the handler's, then the provider's, then the record's own.
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        write(
            Self.line(
                time: now(), level: event.level, label: label, message: event.message.description,
                metadata: merged, source: event.source) + "\n")
    }

    /// Metadata keys whose values are credentials wherever they appear.
    static let redactedKeys: Set<String> = [
        "access_token", "token", "code", "authorization", "cookie", "set-cookie", "appsecret_proof", "signed_request",
        "id_token", "refresh_token", "client_token", "fb_exchange_token", "input_token", "master_key", "private_key",
        "user_code", "device_code",
    ]

    /// The JSON text of one record, without the newline.
    static func line(
        time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, source: String
    ) -> String {
        var pairs: [(String, JSONValue)] = [
            ("time", .string(timestamp(time))), ("level", .string(level.rawValue)), ("label", .string(label)),
            ("message", .string(message)),
        ]
        let reserved: Set<String> = ["time", "level", "label", "message", "source"]
        for key in metadata.keys.sorted() {
            let value = isSecret(key) ? .string("[redacted]") : json(metadata[key]!)
            // A metadata key that collides with a record field is kept beside it rather than replacing it.
            pairs.append((reserved.contains(key) ? "metadata.\(key)" : key, value))
        }
        pairs.append(("source", .string(source)))
        return JSONValue.object(JSONObject(pairs)).serialized()
    }

    static func isSecret(_ key: String) -> Bool {
        let lower = key.lowercased()
        return redactedKeys.contains(lower) || lower.contains("secret") || lower.contains("password")
    }

    private static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let entries):
            .object(
                JSONObject(
                    entries.keys.sorted().map { key in
                        (key, isSecret(key) ? .string("[redacted]") : json(entries[key]!))
                    }))
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }
}

/// Standard output shared by the log records of every task: one `write` per line under a lock, so two records
/// never interleave within a line (a pipe keeps a write of up to PIPE_BUF bytes whole, but FileHandle may split
/// a longer one).
enum StandardOutputLines {
    private static let lock = NSLock()

    static func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

/// `--log-format` / `GATEHOUSE_LOG_FORMAT`: `text` (swift-log's lines on standard error, the default) or `json`.
enum LogFormat: String {
    case text, json

    /// The flag, else the environment variable, else text.
    static func resolve(flag: String?, environment: [String: String]) throws -> LogFormat {
        let given = flag ?? environment["GATEHOUSE_LOG_FORMAT"].flatMap { $0.isEmpty ? nil : $0 }
        guard let given else { return .text }
        guard let format = LogFormat(rawValue: given.lowercased()) else {
            throw CLIError("log format must be text or json, not \(given) (--log-format or GATEHOUSE_LOG_FORMAT)")
        }
        return format
    }

    /// Makes every logger the process creates from now on write JSON lines to standard output. Once per process:
    /// swift-log's bootstrap may not run twice.
    static func bootstrapJSON() {
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, write: StandardOutputLines.write) }
    }
}
