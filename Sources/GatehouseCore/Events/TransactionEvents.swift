import Foundation

/// Where a write transaction's body records the events its writes cause (`token.issued`, `code.exchanged`).
///
/// The server's recorder stores each event in the transaction itself (``TransactionStores/eventTable``), so an
/// event commits with the write it announces or not at all, in the same commit: a token route pays one fsync, not
/// one for its write and another for each event. Recording throws what the insert throws, and the transaction
/// then rolls back: a write is never stored without its event.
package protocol TransactionEventRecorder: Sendable {
    /// Records an event in the transaction; `id` nil makes a new one.
    func record(_ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String])
        async throws
}

extension TransactionEventRecorder {
    package func record(
        _ type: EventType, appID: String? = nil, personID: String? = nil, _ details: [String: String] = [:]
    ) async throws {
        try await record(type, id: nil, appID: appID, personID: personID, details: details)
    }
}

/// The recorder of a transaction nobody records events for (storage used without the server's event log).
package struct UnrecordedEvents: TransactionEventRecorder {
    package init() {}

    package func record(
        _ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String]
    ) async throws {}
}
