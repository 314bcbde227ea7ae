import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Records each protocol request (dialog steps, token endpoint, `debug_token`, Graph calls, device login) in the
/// request journal, with its status, duration and what the handlers noted on the request's ``JournalNote``.
///
/// Installed only when the journal is on (``GatehouseConfiguration/journalEnabled``), so with it off the
/// pipeline is unchanged and the handlers' `JournalNote.current?.…` calls find no note. The console, the admin
/// API, static files, health and metrics are not journaled.
struct JournalMiddleware: RouterMiddleware {
    typealias Context = GatehouseRequestContext
    let journal: RequestJournal
    let clock: any GatehouseClock

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        guard let kind = Self.kind(of: path), journal.isEnabled else { return try await next(request, context) }
        let note = JournalNote()
        let time = clock.now()
        let start = ContinuousClock.now
        // Graph calls note their merged parameters in the adapter; pages and dialogs have only the query.
        if kind != .graph, kind != .token, kind != .debugToken, let query = request.uri.query, !query.isEmpty,
            let pairs = FormEncoding.decode(query)
        {
            note.parameters(pairs)
        }
        do {
            let response = try await JournalNote.$current.withValue(note) { try await next(request, context) }
            record(
                note, kind: kind, method: context.method(of: request), path: path, status: response.status.code,
                time: time, start: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(
                note, kind: kind, method: context.method(of: request), path: path, status: status, time: time,
                start: start)
            throw error
        }
    }

    private func record(
        _ note: JournalNote, kind: JournalEntry.Kind, method: HTTPRequest.Method, path: String, status: Int,
        time: Date, start: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let route = String(path.prefix(JournalEntry.routeCharacters))
        let (entry, parts) = note.entry(
            time: time, kind: kind, method: method.rawValue, route: route, status: status,
            durationMilliseconds: milliseconds)
        let sequence = journal.record(entry)
        for var part in parts {
            part.batchSequence = sequence
            journal.record(part)
        }
    }

    /// What a path is, or nil for paths the journal leaves out.
    static func kind(of path: String) -> JournalEntry.Kind? {
        var segments = path.split(separator: "/", omittingEmptySubsequences: true)
        if let first = segments.first, first.count > 1, first.first == "v",
            first.dropFirst().allSatisfy({ $0.isNumber || $0 == "." })
        {
            segments.removeFirst()
        }
        guard let first = segments.first else { return .graph }
        switch first {
        case "console", "admin", "static", "metrics", "healthz", "readyz", "bench", "favicon.ico", ".well-known",
            "pictures", "app-icons":
            return nil
        case "dialog": return .dialog
        case "oauth": return .token
        case "debug_token": return .debugToken
        case "device": return .device
        case "login", "logout", "settings", "callback", "account", "dev":
            return .page
        default: return .graph
        }
    }
}
