import Foundation

/// Which events a listing wants: after a position, of some types, for an app or a person, within a time range.
package struct EventQuery: Sendable, Equatable {
    /// Only events stored after this sequence number.
    package var after: Int64?
    /// Only these types (empty: every type).
    package var types: [EventType]
    package var appID: String?
    package var personID: String?
    /// At or after.
    package var since: Date?
    /// Before.
    package var until: Date?
    package var limit: Int

    package init(
        after: Int64? = nil, types: [EventType] = [], appID: String? = nil, personID: String? = nil,
        since: Date? = nil, until: Date? = nil, limit: Int = 50
    ) {
        self.after = after
        self.types = types
        self.appID = appID
        self.personID = personID
        self.since = since
        self.until = until
        self.limit = limit
    }

    /// Whether `event` passes the filters (not the position or the limit).
    package func matches(_ event: GatehouseEvent) -> Bool {
        (types.isEmpty || types.contains(event.type)) && (appID == nil || event.appID == appID)
            && (personID == nil || event.personID == personID) && (since.map { event.time >= $0 } ?? true)
            && (until.map { event.time < $0 } ?? true)
    }
}

/// The `events` table: every node's events in the order they were stored, with retention by age and count.
package protocol EventStore: Sendable {
    /// Stores `event` and its sink deliveries; returns it with its sequence number, or nil when an event with the
    /// same id is already stored (the expiry sweep of two nodes finds the same token: one event).
    func append(_ event: GatehouseEvent, deliveries: [EventDeliveryRecord]) async throws -> GatehouseEvent?
    /// Stores several events and their deliveries, in this order, as few statements as the backend allows (a
    /// transaction's events: each statement is a trip to the database). An event whose id is stored is skipped.
    func append(contentsOf events: [(event: GatehouseEvent, deliveries: [EventDeliveryRecord])]) async throws
    /// Matching events after `query.after`, oldest first, at most `query.limit`.
    func list(_ query: EventQuery) async throws -> [GatehouseEvent]
    /// The newest sequence number stored (0 when none).
    func latestSequence() async throws -> Int64
    /// Deletes events older than `cutoff`, then all but the newest `maximumRows`; returns how many went.
    @discardableResult
    func prune(olderThan cutoff: Date, keepingAtMost maximumRows: Int) async throws -> Int
    /// Tokens whose expiry fell in `(from, to]`, for the expiry sweep: id, app, person and expiry.
    func tokensExpired(after from: Date, upTo to: Date, limit: Int) async throws -> [TokenRecord]
}

/// One event on its way to one sink: a row of the `event_deliveries` outbox. The body is the event's JSON as
/// stored; the sink's URL and secret are read from the configuration at each attempt, so no secret is stored.
package struct EventDeliveryRecord: Sendable, Equatable {
    /// `EVENT-ID@SINK`.
    package var id: String
    package var eventID: String
    /// The sink's name in the configuration.
    package var sink: String
    package var body: String
    package var attempts: Int
    package var nextAttemptAt: Date?
    package var createdAt: Date
    package var deliveredAt: Date?
    package var gaveUpAt: Date?
    package var lastError: String?

    package init(
        eventID: String, sink: String, body: String, attempts: Int = 0, nextAttemptAt: Date?, createdAt: Date,
        deliveredAt: Date? = nil, gaveUpAt: Date? = nil, lastError: String? = nil
    ) {
        self.id = eventID + "@" + sink
        self.eventID = eventID
        self.sink = sink
        self.body = body
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.gaveUpAt = gaveUpAt
        self.lastError = lastError
    }
}

extension EventDeliveryRecord: OutboxItem {}

/// The `event_deliveries` outbox.
package protocol EventDeliveryStore: OutboxStore where Item == EventDeliveryRecord {
    /// One event's deliveries, by sink name.
    func deliveries(eventID: String) async throws -> [EventDeliveryRecord]
}

/// Where the services announce what happened. The server's ``EventRecorder`` stores the event and queues it for
/// the sinks; recording never fails the caller (a failure is logged) and never waits on a sink.
package protocol EventRecorder: Sendable {
    /// Records an event; `id` nil makes a new one, and an event already stored under a given `id` is not recorded
    /// again (the expiry sweep names each expired token's event after the token).
    func record(_ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String]) async
}

extension EventRecorder {
    package func record(
        _ type: EventType, appID: String? = nil, personID: String? = nil, _ details: [String: String] = [:]
    ) async {
        await record(type, id: nil, appID: appID, personID: personID, details: details)
    }
}
