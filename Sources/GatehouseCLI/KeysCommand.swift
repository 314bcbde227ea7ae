import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseServer

/// `gatehouse keys …`: the id_token signing keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List and rotate the id_token signing keys.",
        subcommands: [List.self, Rotate.self])

    struct KeyJSON: Encodable {
        var kid: String
        var status: String
        var created_at: Date
        var retired_at: Date?
        var published_until: Date?
    }

    static func describe(_ key: SigningKeyRecord, now: Date) -> KeyJSON {
        let status = key.retiredAt == nil ? "active" : ((key.publishUntil ?? now) > now ? "published" : "expired")
        return KeyJSON(
            kid: key.kid, status: status, created_at: key.createdAt, retired_at: key.retiredAt,
            published_until: key.publishUntil)
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List signing keys: the active one, and retired ones still published.")
        @OptionGroup var data: DataOptions
        @Flag(help: "Print one JSON document (an array).") var json = false

        func execute() async throws {
            let keys = try await withServices(data) { s in
                _ = try await s.keyRing.activeKey()
                let now = s.clock.now()
                return try await s.keyRing.allKeys().map { KeysCommand.describe($0, now: now) }
            }
            if json { try printJSON(keys); return }
            for key in keys {
                print(
                    "\(key.kid)  \(key.status)  created \(key.created_at)"
                        + (key.published_until.map { "  published until \($0)" } ?? ""))
            }
        }
    }

    struct Rotate: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start signing with a new key; the old one stays published for a grace period.")
        @Option(help: "How long the old key stays published: e.g. 7d, 12h, 30m (default 7d).") var grace: String = "7d"
        @OptionGroup var data: DataOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            guard let seconds = DurationText.parse(grace) else {
                throw fail("--grace takes a number with d, h, m or s, e.g. 7d")
            }
            let key = try await withServices(data) { s in
                _ = try await s.keyRing.activeKey()
                return KeysCommand.describe(try await s.keyRing.rotate(grace: seconds), now: s.clock.now())
            }
            if json {
                try printJSON(key)
            } else {
                print("Now signing with \(key.kid); the previous key stays published for \(grace).")
            }
        }
    }
}

/// `7d`, `12h`, `30m`, `45s` → seconds.
enum DurationText {
    static func parse(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let value = Double(text.dropLast()), value >= 0 else { return nil }
        switch unit {
        case "d": return value * 86400
        case "h": return value * 3600
        case "m": return value * 60
        case "s": return value
        default: return nil
        }
    }
}
