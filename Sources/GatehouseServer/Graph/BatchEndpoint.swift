import GatehouseCore
import Foundation
import GatehouseProtocol

/// `POST /` with `batch=[…]`: up to 50 Graph calls, each with its own token or the request's.
///
/// What a batch may produce is bounded, because `{result=…}` lets each entry repeat the ones before it: thirty
/// chained entries in a 4 KB request once asked for about 40·2²⁹ bytes (issue 27, finding 1). A substituted
/// `relative_url` or `body` holds at most `limits.batch_substitution_bytes` (128 KiB), and the replies of one batch
/// together at most `limits.batch_answer_bytes` (8 MiB); an entry past either bound gets a `(#100)` error in its
/// place. Both are far above what a Facebook client sends: 50 pages of 5,000 ids each fit.
struct BatchEndpoint: Sendable {
    let dispatcher: GraphDispatcher
    static var maxEntries: Int { GraphBatch.maximumEntries }
    /// The most bytes a `relative_url` or `body` may hold once its `{result=…}` placeholders are replaced.
    var maxSubstitutedBytes: Int { dispatcher.services.configuration.limits.batchSubstitutionBytes }
    /// The most bytes the replies of one batch may hold together, counted as the JSON each reply is sent as.
    var maxAnswerBytes: Int { dispatcher.services.configuration.limits.batchAnswerBytes }

    func handle(_ call: GraphCall) async throws -> GraphReply {
        // One level only: a nested batch would multiply the 50-entry cap (50 × 50 × …) past every limit.
        guard !call.insideBatch else { throw GraphFailure(.invalidParameter("Batch requests cannot be nested")) }
        guard let raw = call.params["batch"], let parsed = try? JSONValue.parse(Data(raw.utf8)),
            case .array(let entries) = parsed
        else {
            throw GraphFailure(.invalidParameter("The parameter batch must be a JSON array"))
        }
        guard !entries.isEmpty else {
            throw GraphFailure(.invalidParameter("The batch must contain at least one request"))
        }
        guard entries.count <= Self.maxEntries else {
            throw GraphFailure(.tooManyInBatch)
        }
        var results: [JSONValue] = []
        var named: [String: (ok: Bool, body: JSONValue)] = [:]
        var answered = 0
        var dependedOn = Set<String>()
        for entry in entries { if let d = entry["depends_on"]?.stringValue { dependedOn.insert(d) } }

        for entry in entries {
            guard case .object = entry, let relative = entry["relative_url"]?.stringValue else {
                results.append(Self.entryError(.invalidParameter("Each batch entry needs a relative_url")))
                continue
            }
            let name = entry["name"]?.stringValue
            if let dependency = entry["depends_on"]?.stringValue, named[dependency]?.ok != true {
                results.append(.null)
                if let name { named[name] = (false, .null) }
                continue
            }
            let method = GraphCall.Method(rawValue: (entry["method"]?.stringValue ?? "GET").uppercased())
            let reply: GraphReply
            let resolvedURL = Self.substitute(relative, results: named, limit: maxSubstitutedBytes)
            let body = entry["body"]?.stringValue.map {
                Self.substitute($0, results: named, limit: maxSubstitutedBytes)
            }
            if let resolvedURL, let body = body ?? "" {
                reply = await dispatchEntry(
                    method: method, relativeURL: resolvedURL, body: body, index: results.count, parent: call)
            } else {
                reply = .error(
                    .invalidParameter(
                        "The batch entry is longer than \(maxSubstitutedBytes) bytes once its {result=…} references are replaced"
                    ))
            }
            var rendered = Self.render(reply)
            var ok = (200..<300).contains(reply.status)
            // Counted whether or not the reply is sent: a kept result is memory all the same.
            let size = rendered["body"]?.stringValue?.utf8.count ?? 0
            if answered + size > maxAnswerBytes {
                rendered = Self.entryError(
                    .invalidParameter(
                        "The batch's replies would exceed \(maxAnswerBytes) bytes; this entry's reply was left out"))
                ok = false
            } else {
                answered += size
            }
            // A failed entry's reply is never substituted into a later one, so it is not kept either.
            var bodyValue: JSONValue = .null
            if ok, case .json(let v) = reply.body { bodyValue = v }
            if let name { named[name] = (ok, bodyValue) }
            let omit = entry["omit_response_on_success"]?.boolValue ?? (name.map(dependedOn.contains) ?? false)
            results.append(ok && omit ? .null : rendered)
        }
        return .json(.array(results))
    }

    /// Runs one entry as its own Graph call, recorded as a part of the batch when the journal is on.
    private func dispatchEntry(
        method: GraphCall.Method?, relativeURL: String, body: String, index: Int, parent: GraphCall
    ) async -> GraphReply {
        guard let method, let sub = Self.makeCall(method: method, relativeURL: relativeURL, body: body, parent: parent)
        else {
            return .error(.invalidParameter("Invalid batch entry"))
        }
        guard let batchNote = JournalNote.current else { return await dispatcher.dispatch(sub) }
        return await dispatchRecorded(sub, index: index, relativeURL: relativeURL, into: batchNote)
    }

    /// Dispatches one entry with a note of its own, and adds its journal entry to the batch's: each part is
    /// recorded individually, linked to the batch (`route` is `batch[i] path`, without the query).
    private func dispatchRecorded(_ sub: GraphCall, index: Int, relativeURL: String, into batchNote: JournalNote) async
        -> GraphReply
    {
        let part = JournalNote()
        GraphHTTPAdapter.note(sub, on: part)
        let time = dispatcher.services.clock.now()
        let started = ContinuousClock.now
        let reply = await JournalNote.$current.withValue(part) { await dispatcher.dispatch(sub) }
        if let error = reply.graphError { part.answered(with: error) }
        let elapsed = ContinuousClock.now - started
        let path =
            relativeURL.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            ?? ""
        let (entry, _) = part.entry(
            time: time, kind: .batchPart, method: sub.method.rawValue,
            route: "batch[\(index)] " + String(path.prefix(JournalEntry.routeCharacters)), status: reply.status,
            durationMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds)
                / 1e15)
        batchNote.addPart(entry)
        return reply
    }

    /// A sub-call: the relative URL's path and query, the body's form fields, and the token fallback.
    static func makeCall(method: GraphCall.Method, relativeURL: String, body: String?, parent: GraphCall) -> GraphCall?
    {
        let trimmed = relativeURL.hasPrefix("/") ? String(relativeURL.dropFirst()) : relativeURL
        let parts = trimmed.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var segments = (parts.first ?? "").split(separator: "/").map(String.init)
        var version = parent.version
        // Only a version Facebook released is one; another `vN.M` stays in the path, as Facebook reads it (an id).
        if let first = segments.first, GraphAPIVersion.isReleased(first) {
            version = first
            segments.removeFirst()
        }
        guard let query = FormEncoding.decode(parts.count > 1 ? parts[1] : ""),
            let form = FormEncoding.decode(body ?? "")
        else { return nil }
        var params: [String: String] = [:]
        for (k, v) in query + form { params[k] = v }
        let token = params["access_token"] ?? parent.accessToken
        // The entry runs for the same client as its batch: per-IP limits must see it.
        var sub = GraphCall(method: method, path: segments, version: version, params: params, accessToken: token)
        sub.clientIP = parent.clientIP
        sub.insideBatch = true
        return sub
    }

    /// Replaces `{result=name:$.path}` with values from an earlier named entry (comma-joined for arrays); nil when
    /// the result would be longer than `limit` bytes (checked as it grows, so it never gets far past).
    static func substitute(_ text: String, results: [String: (ok: Bool, body: JSONValue)], limit: Int) -> String? {
        guard text.contains("{result=") else { return text }
        var out = "", rest = Substring(text)
        func append(_ piece: some StringProtocol) -> Bool {
            out += piece
            return out.utf8.count <= limit
        }
        while let open = rest.range(of: "{result=") {
            guard append(rest[..<open.lowerBound]) else { return nil }
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                return append(rest[open.lowerBound...]) ? out : nil
            }
            let spec = rest[open.upperBound..<close]
            if let colon = spec.firstIndex(of: ":"), let source = results[String(spec[..<colon])] {
                guard append(Self.evaluate(path: String(spec[spec.index(after: colon)...]), in: source.body)) else {
                    return nil
                }
            }
            rest = rest[rest.index(after: close)...]
        }
        return append(rest) ? out : nil
    }

    /// A small JSONPath: `$.a.b.0.c` and `$.data.*.id`.
    static func evaluate(path: String, in value: JSONValue) -> String {
        var current: [JSONValue] = [value]
        for step in path.split(separator: ".").dropFirst(path.hasPrefix("$") ? 1 : 0) {
            current = current.flatMap { v -> [JSONValue] in
                if step == "*" { return v.arrayValue ?? [] }
                if let index = Int(step), let item = v[index] { return [item] }
                return v[String(step)].map { [$0] } ?? []
            }
        }
        return current.map { $0.stringValue ?? $0.serialized() }.joined(separator: ",")
    }

    static func render(_ reply: GraphReply) -> JSONValue {
        var headers: [JSONValue] = [["name": "Content-Type", "value": "application/json; charset=UTF-8"]]
        for (name, value) in reply.headers { headers.append(["name": .string(name), "value": .string(value)]) }
        let body: String
        switch reply.body {
        case .json(let v): body = v.serialized()
        case .bytes, .empty: body = ""
        }
        return ["code": .int(Int64(reply.status)), "headers": .array(headers), "body": .string(body)]
    }

    static func entryError(_ error: GraphError) -> JSONValue { render(.error(error)) }
}
