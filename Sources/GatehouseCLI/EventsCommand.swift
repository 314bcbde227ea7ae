import ArgumentParser
import Foundation

/// `gatehouse events`: the server's event stream for operators, from its admin API (`GET /admin/api/v1/events`).
struct EventsCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Show the server's events: logins, consent, tokens, admin writes.",
        discussion: """
            Reads the event stream of a running server (GET /admin/api/v1/events), oldest first: login.succeeded, \
            login.failed (with the reason), consent.granted and .changed, token.issued, .revoked and .expired, \
            code.exchanged and .replayed, password.changed and .reset, two_factor.enrolled, .disabled and .used, \
            account.state_changed and .deleted, admin.write. Events hold no secret, so a read-only admin token will do.

            Examples:
              gatehouse events                                  the events stored, oldest first
              gatehouse events --follow --type login.failed     failed logins as they happen
              gatehouse events --app APP_ID --json              one JSON object a line
            """)

    @Flag(name: .shortAndLong, help: "Keep printing new events as they happen (long polling; Ctrl-C stops).")
    var follow = false
    @Option(name: .customLong("type"), help: "Only events of this type (repeatable, or comma-separated).")
    var types: [String] = []
    @Option(help: "Only events about this app (its id).") var app: String?
    @Option(help: "Only events about this person (their global id).") var person: String?
    @Option(help: "Only events at or after this time (RFC 3339, e.g. 2026-01-31T12:00:00Z).") var since: String?
    @Option(help: "With --follow: seconds each poll waits for new events (1 to 30).") var wait: Int = 25
    @OptionGroup var server: AdminServerOptions

    func execute() async throws {
        var cursor: String?
        // Everything stored that matches, page by page; then, following, whatever comes next.
        while true {
            let page = try await fetch(cursor: cursor, wait: nil)
            cursor = page.follow
            if page.next == nil { break }
            cursor = page.next
        }
        guard follow else { return }
        while true {
            cursor = try await fetch(cursor: cursor, wait: max(1, min(wait, 30))).follow
        }
    }

    /// Prints one page; returns the page's cursors.
    private func fetch(cursor: String?, wait: Int?) async throws -> (next: String?, follow: String?) {
        var query: [(String, String)] = [("limit", "200")]
        if let cursor { query.append(("cursor", cursor)) }
        for type in types { query.append(("type", type)) }
        if let app { query.append(("app", app)) }
        if let person { query.append(("person", person)) }
        if let since { query.append(("since", since)) }
        if let wait { query.append(("wait", "\(wait)")) }
        let path = "/events?" + query.map { "\($0.0)=\(LogsCommand.escape($0.1))" }.joined(separator: "&")
        let object = AdminServerOptions.object(try await server.call("GET", path).1)
        var out = ""
        for event in object["data"] as? [[String: Any]] ?? [] {
            if server.json {
                let line =
                    (try? JSONSerialization.data(
                        withJSONObject: event, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
                out += String(decoding: line, as: UTF8.self) + "\n"
            } else {
                out += Self.format(event) + "\n"
            }
        }
        // Straight to the file handle, so a follower piped into another program sees each line at once.
        if !out.isEmpty { FileHandle.standardOutput.write(Data(out.utf8)) }
        return (object["next_cursor"] as? String, object["follow_cursor"] as? String ?? cursor)
    }

    /// `2026-11-29T01:02:03Z login.failed person=123 app=456 reason="the email or password was wrong" step=password`.
    static func format(_ event: [String: Any]) -> String {
        var line = "\(event["time"] as? String ?? "-") \(event["type"] as? String ?? "-")"
        if let person = event["person_id"] as? String { line += " person=\(person)" }
        if let app = event["app_id"] as? String { line += " app=\(app)" }
        let details = event["details"] as? [String: String] ?? [:]
        for key in details.keys.sorted() {
            let value = details[key] ?? ""
            let plain = !value.isEmpty && value.allSatisfy { !$0.isWhitespace && $0 != "\"" }
            line += " \(key)=" + (plain ? value : "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\"")
        }
        return line
    }
}
