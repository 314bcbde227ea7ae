import Foundation
import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// `/admin/api/v1/events`: the operators' event stream (issue 42), oldest first.
///
///     GET /events   {data: [Event], next_cursor, follow_cursor}
///         ?type=login.failed,token.issued (repeatable) &app=ID &person=ID &since=TIME &until=TIME
///         &cursor=e… &limit=N (1…200, default 50) &wait=0…30 (seconds)
///
/// `next_cursor` is the v1 lists' paging cursor: a string while more matching events are stored now, null on the
/// last page. `follow_cursor` is always given: the position to ask from later for what has happened since. With a
/// `cursor` and `wait`, a request that finds nothing waits up to `wait` seconds for a matching event (long
/// polling: `gatehouse events --follow`). Events hold no secret, so read-only admin tokens may read them.
struct V1Events: Sendable {
    let services: GatehouseServices

    static let maximumWait = 30
    /// How often a waiting request looks again (events may come from any node, so it reads the table).
    static let pollInterval: Duration = .milliseconds(250)

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/events") { call in
                guard let store = services.storage.events else {
                    throw Problem.notFound("this server's storage keeps no events")
                }
                let request = try EventsRequest(call.request)
                var query = request.query
                query.limit = request.limit + 1
                let deadline = ContinuousClock.now + .seconds(request.wait)
                while true {
                    // Read before the listing: every event at or below it that matches is in the listing.
                    let latest = try await store.latestSequence()
                    let found = try await store.list(query)
                    let shown = found.prefix(request.limit)
                    if !shown.isEmpty || request.wait == 0 || request.query.after == nil
                        || ContinuousClock.now >= deadline
                    {
                        let follow = shown.last?.sequence ?? max(request.query.after ?? 0, latest)
                        return AdminAPIv1.reply([
                            "data": .array(shown.map(\.json)),
                            "next_cursor": found.count > request.limit
                                ? .string(EventsRequest.encode(shown.last!.sequence)) : .null,
                            "follow_cursor": .string(EventsRequest.encode(follow)),
                        ])
                    }
                    try await Task.sleep(for: Self.pollInterval)
                }
            }
        ]
    }
}

/// The query of `GET /events`, checked: each bad parameter is a validation problem naming it.
struct EventsRequest {
    var query: EventQuery
    var limit: Int
    var wait: Int

    init(_ request: Request) throws {
        let q = request.uri.queryParameters
        var types: [EventType] = []
        for value in q.getAll("type") {
            for name in value.split(separator: ",", omittingEmptySubsequences: true) {
                guard let type = EventType(rawValue: String(name)) else {
                    throw Problem.validation("type", "\(GraphError.echo(String(name))) is not an event type")
                }
                if !types.contains(type) { types.append(type) }
            }
        }
        query = EventQuery(types: types)
        query.appID = try Self.identifier(q.get("app"), "app")
        query.personID = try Self.identifier(q.get("person"), "person")
        query.since = try Self.time(q.get("since"), "since")
        query.until = try Self.time(q.get("until"), "until")
        if let cursor = q.get("cursor") {
            guard let position = Self.decode(cursor) else {
                throw Problem.validation("cursor", "the cursor is not one this server gave out")
            }
            query.after = position
        }
        limit = Page.defaultLimit
        if let text = q.get("limit") {
            guard let value = Int(text), (1...Page.maximumLimit).contains(value) else {
                throw Problem.validation("limit", "limit must be a whole number from 1 to \(Page.maximumLimit)")
            }
            limit = value
        }
        wait = 0
        if let text = q.get("wait") {
            guard let value = Int(text), (0...V1Events.maximumWait).contains(value) else {
                throw Problem.validation("wait", "wait must be a whole number of seconds from 0 to 30")
            }
            wait = value
        }
    }

    /// `e` and the sequence number of the last event served (the document's `eventCursor` pattern).
    static func encode(_ sequence: Int64) -> String { "e\(sequence)" }

    static func decode(_ cursor: String) -> Int64? {
        let digits = cursor.dropFirst()
        guard cursor.first == "e", (1...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return Int64(digits)
    }

    private static func identifier(_ value: String?, _ name: String) throws -> String? {
        guard let value else { return nil }
        guard (1...200).contains(value.count) else {
            throw Problem.validation(name, "\(name) must be an id of 1 to 200 characters")
        }
        return value
    }

    /// An RFC 3339 time (`2026-11-29T01:00:00Z`, fractions and offsets allowed).
    private static func time(_ value: String?, _ name: String) throws -> Date? {
        guard let value else { return nil }
        if let date = try? Date(value, strategy: .iso8601) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(value) { return date }
        throw Problem.validation(name, "\(name) must be an RFC 3339 time such as 2026-01-31T12:00:00Z")
    }
}
