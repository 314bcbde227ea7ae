import Foundation
import GatehouseCore
import GatehouseProtocol
import Logging

/// The server's ``EventRecorder``: stores each event in `events` and, for every configured sink that receives its
/// type, a row in the event outbox (`event_deliveries`), then wakes the sink worker. The request that caused the
/// event waits for the two inserts, never for a sink; a failure to store is logged and does not fail the request.
package struct EventLog: EventRecorder {
    let store: (any EventStore)?
    let sinks: [EventSinkConfiguration]
    let clock: any GatehouseClock
    let random: any RandomSource
    let node: String
    let logger: Logger
    /// Wakes the sink worker when a delivery is queued.
    let doorbell: OutboxDoorbell

    package init(
        store: (any EventStore)?, sinks: [EventSinkConfiguration], clock: any GatehouseClock,
        random: any RandomSource, node: String, logger: Logger, doorbell: OutboxDoorbell
    ) {
        self.store = store
        self.sinks = sinks
        self.clock = clock
        self.random = random
        self.node = node
        self.logger = logger
        self.doorbell = doorbell
    }

    package func record(
        _ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String]
    ) async {
        await store(type, id: id ?? newID(), appID: appID, personID: personID, details: details)
    }

    /// A new event's id: time-ordered, so the `events` id index grows at its end (see
    /// ``RandomSource/timeOrderedUUIDString(at:)``).
    func newID() -> String { random.timeOrderedUUIDString(at: clock.now()) }

    /// Stores the event and its deliveries; nil when it was not stored (already there, or the store failed).
    @discardableResult
    func store(
        _ type: EventType, id: String, appID: String?, personID: String?, details: [String: String]
    ) async -> GatehouseEvent? {
        guard let store else { return nil }
        let (event, deliveries) = draft(type, id: id, appID: appID, personID: personID, details: details)
        do {
            let stored = try await store.append(event, deliveries: deliveries)
            if stored != nil, !deliveries.isEmpty { doorbell.ring() }
            return stored
        } catch {
            logger.error("event not stored", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
            return nil
        }
    }

    /// Stores `events` in order, in one append (on PostgreSQL one statement, one turn under the events' lock), with
    /// their deliveries. A failure is logged and loses these events only, as ``store(_:id:appID:personID:details:)``'s.
    func store(_ events: [PendingEvent]) async {
        guard let store, !events.isEmpty else { return }
        let drafts = events.map {
            draft($0.type, id: $0.id ?? newID(), appID: $0.appID, personID: $0.personID, details: $0.details)
        }
        do {
            try await store.append(contentsOf: drafts.map { (event: $0.0, deliveries: $0.1) })
            if drafts.contains(where: { !$0.1.isEmpty }) { doorbell.ring() }
        } catch {
            logger.error(
                "events not stored",
                metadata: ["types": "\(events.map(\.type.rawValue).joined(separator: ","))", "error": "\(error)"])
        }
    }

    /// The event as it is stored, and a delivery for each sink that receives its type.
    func draft(
        _ type: EventType, id: String, appID: String?, personID: String?, details: [String: String]
    ) -> (GatehouseEvent, [EventDeliveryRecord]) {
        // Whole seconds, as stored, so a sink's copy and the listing's agree.
        let time = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let event = GatehouseEvent(
            id: id, type: type, time: time, appID: appID, personID: personID, node: node,
            details: details.mapValues { String($0.prefix(Self.detailCharacters)) })
        let receivers = sinks.filter { $0.receives(type) }
        // The body is serialized only for a sink that will be sent it.
        let body = receivers.isEmpty ? "" : event.json.serialized()
        let deliveries = receivers.map {
            EventDeliveryRecord(eventID: id, sink: $0.name, body: body, nextAttemptAt: time, createdAt: time)
        }
        return (event, deliveries)
    }

    /// The longest detail value kept (a journal explanation, a route).
    static let detailCharacters = 500

    /// This node's name in events: host name and port.
    package static func nodeName(_ configuration: GatehouseConfiguration) -> String {
        ProcessInfo.processInfo.hostName + ":\(configuration.port)"
    }
}

/// An event recorded but not yet stored (a transaction's, until it commits); `id` nil gets a new one.
struct PendingEvent: Sendable {
    var type: EventType
    var id: String?
    var appID: String?
    var personID: String?
    var details: [String: String]
}
