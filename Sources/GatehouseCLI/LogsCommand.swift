import GatehouseCore
import ArgumentParser
import Foundation

/// `gatehouse logs`: the running server's request journal in the terminal, from its admin API.
struct LogsCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "Show the server's recent requests, and why refused ones were refused.",
        discussion: """
            Reads the request journal of a running server (GET /admin/api/v1/journal): dialog steps, token-endpoint \
            calls, debug_token, Graph calls and batch parts, device-login polls and callback deliveries. A refused \
            request carries a plain-language reason ("why:"); the client only ever saw Facebook's error. \
            The journal is on by default in development mode; in production mode start the server with --journal true.

            Examples:
              gatehouse logs                        the last 20 requests
              gatehouse logs --errors --follow      refused ones as they happen
              gatehouse logs --app APP_ID --json    one JSON object a line
            """)

    @Flag(name: .shortAndLong, help: "Keep printing new requests as they happen (Ctrl-C stops).") var follow = false
    @Option(help: "Only this app's requests (its id).") var app: String?
    @Option(help: "Only this person's (name, or the app-scoped id).") var person: String?
    @Option(help: "Only this status: 404, or a class such as 4xx.") var status: String?
    @Option(help: "Only routes containing this text, e.g. access_token or dialog.") var route: String?
    @Option(help: "Only requests that presented this token (its hash prefix, as the console shows it).") var token:
        String?
    @Flag(help: "Only refused or failed requests.") var errors = false
    @Option(help: "How many recent requests to show first (at most 1000).") var limit: Int = 20
    @Option(help: "Seconds between polls with --follow.") var interval: Double = 1
    @OptionGroup var server: AdminServerOptions

    func execute() async throws {
        var latest = try await fetch(after: nil, limit: max(1, min(limit, 1000)), announce: true)
        guard follow else { return }
        while true {
            try await Task.sleep(for: .milliseconds(Int(max(0.2, interval) * 1000)))
            latest = try await fetch(after: latest, limit: JournalEntry.pageSize, announce: false)
        }
    }

    /// Prints the entries after `after` (oldest first) and returns the newest sequence number the server has.
    private func fetch(after: Int?, limit: Int, announce: Bool) async throws -> Int {
        var query: [(String, String)] = [("limit", "\(limit)")]
        if let after { query.append(("after", "\(after)")) }
        if let app { query.append(("app", app)) }
        if let person { query.append(("person", person)) }
        if let status { query.append(("status", status)) }
        if let route { query.append(("route", route)) }
        if let token { query.append(("token", token)) }
        if errors { query.append(("errors", "1")) }
        let path = "/journal?" + query.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
        let data = try await server.call("GET", path).1
        let object = AdminServerOptions.object(data)
        let entries = (object["data"] as? [[String: Any]] ?? []).reversed()
        if announce, object["enabled"] as? Bool == false {
            FileHandle.standardError.write(
                Data("gatehouse: the server's request journal is off; start it with --journal true\n".utf8))
        }
        // Written straight to the file handle, so a follower piped into another program sees each line at once.
        var out = ""
        for entry in entries {
            if server.json {
                let line =
                    (try? JSONSerialization.data(
                        withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
                out += String(decoding: line, as: UTF8.self) + "\n"
            } else {
                out += Self.format(entry) + "\n"
            }
        }
        if announce, entries.isEmpty, !server.json, !follow {
            out +=
                "no requests recorded\(errors || app != nil || person != nil || status != nil || route != nil || token != nil ? " that match" : "")\n"
        }
        if !out.isEmpty { FileHandle.standardOutput.write(Data(out.utf8)) }
        return object["latest"] as? Int ?? after ?? 0
    }

    /// `10:02:11 #42 400 GET /v27.0/oauth/access_token  Shop · Alice  error 100/36009  3.1 ms` and, when refused,
    /// an indented `why:` line.
    static func format(_ entry: [String: Any]) -> String {
        let time = (entry["time"] as? String).map { String($0.dropFirst(11).prefix(8)) } ?? "--:--:--"
        var line =
            "\(time) #\(entry["seq"] as? Int ?? 0) \(entry["status"] as? Int ?? 0) "
            + "\(entry["method"] as? String ?? "") \(entry["route"] as? String ?? "")"
        let who = [entry["app_name"] as? String ?? entry["app_id"] as? String, entry["person_name"] as? String]
            .compactMap { $0 }
        if !who.isEmpty { line += "  " + who.joined(separator: " · ") }
        if let code = entry["error_code"] as? Int {
            line += "  error \(code)" + ((entry["error_subcode"] as? Int).map { "/\($0)" } ?? "")
        }
        if let ms = entry["duration_ms"] as? Double { line += String(format: "  %.1f ms", ms) }
        if let why = entry["explanation"] as? String { line += "\n    why: \(why)" }
        return line
    }

    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? value
    }
}
