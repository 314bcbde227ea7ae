import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import ServiceLifecycle

/// `/console/activity`: the request journal, filtered, live, with a page per request.
///
/// The list refreshes itself through server-sent events (`/console/activity/stream`) read by one small
/// same-origin script, `/static/activity.js`; only this page's CSP allows it (`script-src 'self'`,
/// `connect-src 'self'`), and there is no inline script. Without scripts the page refreshes itself every
/// five seconds (`<noscript>` meta refresh).
struct ConsoleActivity: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    /// The rows shown at most, on the page and in the live list.
    static let pageSize = 200
    /// How long one event stream stays open; the browser reconnects (with `Last-Event-ID`) at once.
    static let streamSeconds = 25
    static let csp =
        "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static let script: ByteBuffer = {
        let url = Bundle.module.url(forResource: "Resources", withExtension: nil)?.appendingPathComponent(
            "static/activity.js")
        return ByteBuffer(bytes: url.flatMap { try? Data(contentsOf: $0) } ?? Data())
    }()

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/static/activity.js") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/javascript; charset=utf-8"
            headers[.cacheControl] = "public, max-age=3600"
            headers[.init("X-Content-Type-Options")!] = "nosniff"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: Self.script))
        }
        router.get(RouterPath(PagePath.Console.activity)) { request, _ in try await list(request) }
        router.get(RouterPath(PagePath.Console.activityStream)) { request, _ in try await stream(request) }
        router.get(RouterPath(PagePath.Console.activityEntry)) { request, context in
            try await detail(request, sequence: context.parameters.get("seq").flatMap(Int.init) ?? 0)
        }
    }

    // MARK: The list

    func list(_ request: Request) async throws -> Response {
        let filter = JournalFilter(request)
        let journal = services.journal
        let latest = journal.lastSequence
        let entries = journal.entries(matching: filter, limit: Self.pageSize)
        var query: [(String, String)] = []
        if let v = filter.appID { query.append(("app", v)) }
        if let v = filter.person { query.append(("person", v)) }
        if let v = filter.status { query.append(("status", v)) }
        if let v = filter.route { query.append(("route", v)) }
        if let v = filter.token { query.append(("token", v)) }
        if filter.errorsOnly { query.append(("errors", "1")) }
        let streamURL = PagePath.Console.activityStream + "?" + FormEncoding.encode(query + [("after", "\(latest)")])
        let apps = try await console.appOptions(selected: filter.appID)
        var response = try await console.page(request, "console-activity", title: "Activity", nav: "activity") {
            () async throws -> [String: Any] in
            [
                "rows": entries.map(Self.row), "empty": entries.isEmpty, "enabled": journal.isEnabled,
                "configured": services.configuration.journalEnabled,
                "apps": apps,
                "person": filter.person ?? "", "status": filter.status ?? "", "route": filter.route ?? "",
                "token": filter.token ?? "",
                "errors": filter.errorsOnly, "filtered": !filter.isEmpty, "streamURL": streamURL,
                "capacity": journal.capacity, "count": entries.count,
            ]
        }
        response.headers[.contentSecurityPolicy] = Self.csp
        return response
    }

    /// One row of the list, for the template (the live script builds the same cells from ``rowJSON(_:)``).
    static func row(_ entry: JournalEntry) -> [String: Any] {
        // Empty strings are left out: swift-mustache treats "" as true in a section.
        let values: [String: Any] = [
            "seq": entry.sequence, "time": PageDates.utc(entry.time, "HH:mm:ss"),
            "day": PageDates.utc(entry.time, "yyyy-MM-dd"),
            "kind": entry.kind.rawValue, "method": entry.method, "route": entry.route, "status": entry.status,
            "isError": entry.isError, "app": entry.appName ?? entry.appID ?? "",
            "person": entry.personName ?? entry.personID ?? "",
            "error": entry.errorCodeText ?? "", "explanation": entry.explanation ?? "",
            "duration": String(format: "%.1f ms", entry.durationMilliseconds),
        ]
        return values.filter { !(($0.value as? String)?.isEmpty ?? false) }
    }

    static func rowJSON(_ entry: JournalEntry) -> JSONValue {
        var o: JSONObject = [
            "seq": .int(Int64(entry.sequence)), "time": .string(PageDates.utc(entry.time, "HH:mm:ss")),
            "kind": .string(entry.kind.rawValue), "method": .string(entry.method), "route": .string(entry.route),
            "status": .int(Int64(entry.status)), "is_error": .bool(entry.isError),
            "app": .string(entry.appName ?? entry.appID ?? ""),
            "person": .string(entry.personName ?? entry.personID ?? ""),
            "error": .string(entry.errorCodeText ?? ""), "explanation": .string(entry.explanation ?? ""),
            "duration": .string(String(format: "%.1f ms", entry.durationMilliseconds)),
        ]
        o["day"] = .string(PageDates.utc(entry.time, "yyyy-MM-dd"))
        return .object(o)
    }

    // MARK: One request

    func detail(_ request: Request, sequence: Int) async throws -> Response {
        guard let entry = services.journal.entry(sequence: sequence) else {
            return try await console.refused(
                request,
                "There is no request #\(sequence) in this node's journal any more (it keeps the last \(services.journal.capacity)).",
                status: .notFound)
        }
        let parts = services.journal.parts(ofBatch: sequence)
        var response = try await console.page(
            request, "console-activity-entry", title: "Request #\(sequence)", nav: "activity"
        ) { () async throws -> [String: Any] in
            var values = Self.row(entry)
            values["fullTime"] = PageDates.utc(entry.time, "yyyy-MM-dd HH:mm:ss.SSS 'UTC'")
            values["appID"] = entry.appID ?? ""
            values["personID"] = entry.personID ?? ""
            values["errorMessage"] = entry.errorMessage ?? ""
            values["token"] = entry.tokenHashPrefix ?? ""
            values["params"] = entry.parameters.map { ["name": $0.name, "value": $0.value] }
            values["parts"] = parts.map(Self.row)
            values["hasParts"] = !parts.isEmpty
            values["batchSeq"] = entry.batchSequence ?? 0
            values["hasBatch"] = entry.batchSequence != nil
            values["json"] = prettyJSON(entry.json)
            return values
        }
        response.headers[.contentSecurityPolicy] = Self.csp
        return response
    }

    private func prettyJSON(_ value: JSONValue) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(value.serialized().utf8)),
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return value.serialized() }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: The live stream

    /// Server-sent events: one `entry` event per new matching entry (oldest first, `id:` its sequence number), a
    /// comment every 10 s, closed after ``streamSeconds`` or when the server shuts down. The journal is polled in
    /// memory twice a second, so a stream costs no database work.
    func stream(_ request: Request) async throws -> Response {
        guard await console.access.allows(request) else { return console.denied() }
        let q = request.uri.queryParameters
        let filter = JournalFilter(request)
        let journal = services.journal
        let resumed = request.headers[.init("Last-Event-ID")!].flatMap(Int.init)
        let start = resumed ?? q.get("after").flatMap(Int.init) ?? journal.lastSequence
        // `for` shortens the stream (tests); it never lasts longer than ``streamSeconds``.
        let seconds = min(Self.streamSeconds, max(1, q.get("for").flatMap(Int.init) ?? Self.streamSeconds))
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.init("X-Accel-Buffering")!] = "no"
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            let deadline = ContinuousClock.now + .seconds(seconds)
            var lastBeat = ContinuousClock.now
            var after = start
            // A graceful shutdown ends the stream within one poll instead of holding the drain for its whole life.
            while ContinuousClock.now < deadline, !Task.isCancelled, !Task.isShuttingDownGracefully {
                let newest = journal.lastSequence
                let fresh = journal.entries(matching: filter, after: after, limit: Self.pageSize)
                var out = ""
                for entry in fresh.reversed() {
                    out += "id: \(entry.sequence)\nevent: entry\ndata: \(Self.rowJSON(entry).serialized())\n\n"
                }
                after = max(newest, fresh.first?.sequence ?? 0, after)
                if out.isEmpty, ContinuousClock.now - lastBeat > .seconds(10) { out = ": keep-alive\n\n" }
                if !out.isEmpty {
                    try await writer.write(ByteBuffer(string: out))
                    lastBeat = ContinuousClock.now
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
