import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/journal` under v1: this node's request journal (`gatehouse logs`, scripts, test suites).
///
///     GET /journal          {"enabled":…,"latest":SEQ,"capacity":N,"data":[entry, …]}, newest first
///         ?app=ID &person=ID-OR-NAME &status=404|4xx &route=TEXT &token=HASH-PREFIX &errors=1
///         &after=SEQ (only newer entries: what a follower has not seen) &limit=N (default 100, at most 1000)
///         &source=table (the `request_journal` table of every node, with `--journal-table`)
///     GET /journal/{seq}    one entry, with its batch parts ("parts")
///
/// Entries are this node's (the in-memory ring buffer). Secrets appear only as their last four characters and
/// tokens as their hash prefix; bodies are never kept.
struct V1Journal: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/journal") { call in
                guard let listing = try await listing(call.request) else {
                    throw Problem.notFound("the request journal table is off on this server (--journal-table)")
                }
                return AdminAPIv1.reply(listing)
            },
            V1Route(method: .get, path: "/journal/{seq}") { call in
                guard let entry = Int(call.parameter("seq")).flatMap(entry(sequence:)) else {
                    throw Problem.notFound(
                        "no journal entry with that number on this node (it may have been overwritten)")
                }
                return AdminAPIv1.reply(entry)
            },
        ]
    }

    /// The answer to `GET /journal`; nil when `source=table` asks for a table this server does not keep.
    /// - Throws: a validation ``Problem`` for an `after`, `limit` or `source` the document does not allow.
    func listing(_ request: Request) async throws -> JSONValue? {
        let q = request.uri.queryParameters
        let filter = JournalFilter(request)
        let after = try q.get("after").map { text in
            guard let value = Int(text), value >= 0 else {
                throw Problem.validation("after", "after must be a whole number, 0 or more")
            }
            return value
        }
        let limit =
            try q.get("limit").map { text in
                guard let value = Int(text), (1...1000).contains(value) else {
                    throw Problem.validation("limit", "limit must be a whole number from 1 to 1000")
                }
                return value
            } ?? 100
        _ = try V1People.flag(q.get("errors"), field: "errors")
        if let source = q.get("source"), source != "table" {
            throw Problem.validation("source", "source must be table (or left out for this node's journal)")
        }
        let journal = services.journal
        let latest = journal.lastSequence
        var entries = journal.entries(matching: filter, after: after, limit: limit)
        if q.get("source") == "table" {
            guard let store = services.storage.journal, services.configuration.journalTable else { return nil }
            // Every node's entries, newest first; filtered here (sequence numbers are per node, so no `after`).
            entries = Array(try await store.recent(limit: JournalEntry.pageSize).filter(filter.matches).prefix(limit))
        }
        return [
            "enabled": .bool(journal.isEnabled), "latest": .int(Int64(latest)),
            "capacity": .int(Int64(journal.capacity)),
            "data": .array(entries.map(\.json)),
        ]
    }

    /// One entry with its batch parts, as `GET /journal/{seq}` answers it; nil when this node no longer has it.
    func entry(sequence: Int) -> JSONValue? {
        guard let entry = services.journal.entry(sequence: sequence), case .object(var object) = entry.json else {
            return nil
        }
        object["parts"] = .array(services.journal.parts(ofBatch: sequence).map(\.json))
        return .object(object)
    }
}

extension JournalFilter {
    /// The filter a query names (`app`, `person`, `status`, `route`, `token`, `errors`): `/journal`'s and the
    /// console's activity page's.
    init(_ request: Request) {
        let q = request.uri.queryParameters
        let errors = q.get("errors").map { ["1", "true", "on", "yes"].contains($0.lowercased()) } ?? false
        self.init(
            appID: q.get("app"), person: q.get("person"), status: q.get("status"), route: q.get("route"),
            token: q.get("token"), errorsOnly: errors)
    }
}

extension JournalEntry {
    /// The entry as `/journal` and the console show it, keys in a stable order; absent values are left out.
    var json: JSONValue {
        var o: JSONObject = [
            "seq": .int(Int64(sequence)), "time": .string(PageDates.utc(time, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")),
            "kind": .string(kind.rawValue), "method": .string(method), "route": .string(route),
            "status": .int(Int64(status)),
            "duration_ms": .double((durationMilliseconds * 100).rounded() / 100),
        ]
        if let v = appID { o["app_id"] = .string(v) }
        if let v = appName { o["app_name"] = .string(v) }
        if let v = personID { o["person_id"] = .string(v) }
        if let v = personName { o["person_name"] = .string(v) }
        if let v = errorCode { o["error_code"] = .int(Int64(v)) }
        if let v = errorSubcode { o["error_subcode"] = .int(Int64(v)) }
        if let v = errorMessage { o["error_message"] = .string(v) }
        if let v = explanation { o["explanation"] = .string(v) }
        if let v = tokenHashPrefix { o["token"] = .string(v) }
        if !parameters.isEmpty {
            var params = JSONObject([])
            for p in parameters { params[p.name] = .string(p.value) }
            o["params"] = .object(params)
        }
        if let v = batchSequence { o["batch_seq"] = .int(Int64(v)) }
        return .object(o)
    }
}
