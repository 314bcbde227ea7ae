import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The request journal over the JSON admin API (`gatehouse logs`, scripts, test suites).
///
///     GET /admin/api/journal          {"enabled":…,"latest":SEQ,"data":[entry, …]}, newest first
///         ?app=ID &person=ID-OR-NAME &status=404|4xx &route=TEXT &token=HASH-PREFIX &errors=1
///         &after=SEQ (only newer entries: what a follower has not seen) &limit=N (default 100, at most 1000)
///         &source=table (the `request_journal` table of every node, with `--journal-table`)
///     GET /admin/api/journal/{seq}    one entry, with its batch parts ("parts")
///
/// Entries are this node's (the in-memory ring buffer). Secrets appear only as their last four characters and
/// tokens as their hash prefix; bodies are never kept.
struct JournalAPI: Sendable {
    let services: GatehouseServices
    let access: ConsoleAccess

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("admin/api/journal") { request, _ in
            guard await access.allows(request) else { return AdminAPI.reply(AdminAPI.denied, status: .forbidden) }
            guard let listing = try await listing(request) else {
                return AdminAPI.reply(
                    AdminAPI.error(404, "the request journal table is off on this server (--journal-table)"),
                    status: .notFound)
            }
            return AdminAPI.reply(listing, status: .ok)
        }
        router.get("admin/api/journal/:seq") { request, context in
            guard await access.allows(request) else { return AdminAPI.reply(AdminAPI.denied, status: .forbidden) }
            guard let entry = context.parameters.get("seq").flatMap(Int.init).flatMap(entry(sequence:)) else {
                return AdminAPI.reply(
                    AdminAPI.error(
                        404, "no journal entry with that number on this node (it may have been overwritten)"),
                    status: .notFound)
            }
            return AdminAPI.reply(entry, status: .ok)
        }
    }

    /// The answer to `GET journal` (shared with `/admin/api/v1/journal`); nil when `source=table` asks for a table
    /// this server does not keep.
    func listing(_ request: Request) async throws -> JSONValue? {
        let q = request.uri.queryParameters
        let filter = Self.filter(request)
        let after = q.get("after").flatMap(Int.init)
        let limit = min(1000, max(1, q.get("limit").flatMap(Int.init) ?? 100))
        let journal = services.journal
        let latest = journal.lastSequence
        var entries = journal.entries(matching: filter, after: after, limit: limit)
        if q.get("source") == "table" {
            guard let store = services.storage.journal, services.configuration.journalTable else { return nil }
            // Every node's entries, newest first; filtered here (sequence numbers are per node, so no `after`).
            entries = Array(try await store.recent(limit: 1000).filter(filter.matches).prefix(limit))
        }
        return [
            "enabled": .bool(journal.isEnabled), "latest": .int(Int64(latest)),
            "capacity": .int(Int64(journal.capacity)),
            "data": .array(entries.map(Self.json)),
        ]
    }

    /// One entry with its batch parts, as `GET journal/{seq}` answers it; nil when this node no longer has it.
    func entry(sequence: Int) -> JSONValue? {
        guard let entry = services.journal.entry(sequence: sequence), case .object(var object) = Self.json(entry) else {
            return nil
        }
        object["parts"] = .array(services.journal.parts(ofBatch: sequence).map(Self.json))
        return .object(object)
    }

    /// The filter named by the query (`app`, `person`, `status`, `route`, `token`, `errors`), shared with the console.
    static func filter(_ request: Request) -> JournalFilter {
        let q = request.uri.queryParameters
        let errors = q.get("errors").map { ["1", "true", "on", "yes"].contains($0.lowercased()) } ?? false
        return JournalFilter(
            appID: q.get("app"), person: q.get("person"), status: q.get("status"), route: q.get("route"),
            token: q.get("token"), errorsOnly: errors)
    }

    /// An entry as JSON, keys in a stable order; absent values are left out.
    static func json(_ entry: JournalEntry) -> JSONValue {
        var o: JSONObject = [
            "seq": .int(Int64(entry.sequence)), "time": .string(iso(entry.time)),
            "kind": .string(entry.kind.rawValue), "method": .string(entry.method), "route": .string(entry.route),
            "status": .int(Int64(entry.status)),
            "duration_ms": .double((entry.durationMilliseconds * 100).rounded() / 100),
        ]
        if let v = entry.appID { o["app_id"] = .string(v) }
        if let v = entry.appName { o["app_name"] = .string(v) }
        if let v = entry.personID { o["person_id"] = .string(v) }
        if let v = entry.personName { o["person_name"] = .string(v) }
        if let v = entry.errorCode { o["error_code"] = .int(Int64(v)) }
        if let v = entry.errorSubcode { o["error_subcode"] = .int(Int64(v)) }
        if let v = entry.errorMessage { o["error_message"] = .string(v) }
        if let v = entry.explanation { o["explanation"] = .string(v) }
        if let v = entry.tokenHashPrefix { o["token"] = .string(v) }
        if !entry.parameters.isEmpty {
            var params = JSONObject([])
            for p in entry.parameters { params[p.name] = .string(p.value) }
            o["params"] = .object(params)
        }
        if let v = entry.batchSequence { o["batch_seq"] = .int(Int64(v)) }
        return .object(o)
    }

    static func iso(_ date: Date) -> String {
        PageDates.utc(date, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
    }
}
