import Foundation
import GatehouseProtocol

/// One HTTP endpoint that receives events (`event_sinks` in the config file, `--event-sinks`,
/// `GATEHOUSE_EVENT_SINKS`): each event of ``types`` (all when empty) is POSTed to ``url`` as JSON, signed with
/// ``secret`` (`X-Gatehouse-Signature: sha256=HEX(HMAC-SHA256(secret, body))`), through the event outbox.
package struct EventSinkConfiguration: Sendable, Equatable {
    /// Names the sink in the outbox's rows and the logs; unique. Defaults to the URL.
    package var name: String
    package var url: String
    /// The event types it receives; empty: every type.
    package var types: [EventType]
    package var secret: String
    /// How long one attempt waits for the answer before it counts as failed (and is retried).
    package var timeoutSeconds: Int

    package init(name: String, url: String, types: [EventType] = [], secret: String, timeoutSeconds: Int = 10) {
        self.name = name
        self.url = url
        self.types = types
        self.secret = secret
        self.timeoutSeconds = timeoutSeconds
    }

    /// Whether the sink receives events of `type`.
    package func receives(_ type: EventType) -> Bool { types.isEmpty || types.contains(type) }

    /// The sinks a setting's value lists: a JSON array of objects with `url`, `secret` or `secret_file`, and
    /// optionally `name`, `types` (a list or a comma-separated string of event types) and `timeout_seconds`.
    /// - Throws: ``ConfigurationError`` naming the entry and what is wrong with it.
    package static func parseList(_ text: String) throws -> [EventSinkConfiguration] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        guard case .array(let entries)? = try? JSONValue.parse(trimmed) else {
            throw ConfigurationError("must be a list of sinks (url, secret or secret_file, types, name), as JSON")
        }
        var sinks: [EventSinkConfiguration] = []
        for (index, entry) in entries.enumerated() {
            let sink = try parse(entry, position: index + 1)
            guard !sinks.contains(where: { $0.name == sink.name }) else {
                throw ConfigurationError("sink \(index + 1): the name \(sink.name) is used twice")
            }
            sinks.append(sink)
        }
        return sinks
    }

    private static func parse(_ entry: JSONValue, position: Int) throws -> EventSinkConfiguration {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError("sink \(position): \(message)") }
        guard let object = entry.objectValue else { throw fail("must be a mapping with url and secret") }
        let known: Set = ["name", "url", "types", "secret", "secret_file", "timeout_seconds"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) { throw fail("unknown key \(unknown)") }
        guard let url = object["url"]?.stringValue, let parts = URLComponents(string: url),
            let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme), parts.host != nil
        else { throw fail("url must be an http:// or https:// URL") }
        var secret = object["secret"]?.stringValue
        if let path = object["secret_file"]?.stringValue {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw fail("cannot read secret_file \(path)")
            }
            secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let secret, secret.utf8.count >= 16 else {
            throw fail("needs a secret (or secret_file) of at least 16 characters to sign with")
        }
        var names: [String] = []
        switch object["types"] {
        case .array(let list)?: names = list.compactMap(\.stringValue)
        case .string(let text)?: names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        case nil, .null?: break
        default: throw fail("types must be a list of event types")
        }
        var types: [EventType] = []
        for name in names {
            guard let type = EventType(rawValue: name) else {
                throw fail("\(name) is not an event type (\(EventType.names))")
            }
            types.append(type)
        }
        let timeout = object["timeout_seconds"]?.intValue ?? 10
        guard (1...60).contains(timeout) else { throw fail("timeout_seconds must be from 1 to 60") }
        return EventSinkConfiguration(
            name: object["name"]?.stringValue ?? url, url: url, types: types, secret: secret,
            timeoutSeconds: Int(timeout))
    }
}

extension EventSinkConfiguration {
    /// The sink as `--print-config` shows it: the secret masked.
    package var maskedJSON: JSONValue {
        .object([
            "name": .string(name), "url": .string(url), "types": .array(types.map { .string($0.rawValue) }),
            "secret": "*****", "timeout_seconds": .int(Int64(timeoutSeconds)),
        ])
    }
}
