import Foundation
import GatehouseCore
import GatehouseProtocol
import Logging
import NIOHTTP1

/// One HTTP request to an app's server: a callback form, a webhook's verification `GET` or its signed JSON.
package struct WebhookHTTPRequest: Sendable {
    package var method: HTTPMethod
    package var url: String
    package var headers: [(String, String)]
    package var body: String?

    package init(method: HTTPMethod, url: String, headers: [(String, String)] = [], body: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Sends webhook requests. The server's is ``GuardedCallbackTransport`` (the callbacks' address rules: https and
/// public addresses in production, loopback allowed in development); tests inject their own.
package protocol WebhookTransport: Sendable {
    /// The HTTP status and up to 64 KiB of the reply body.
    func send(_ request: WebhookHTTPRequest) async throws -> (status: Int, body: [UInt8])
}

/// The outbox of Webhooks notifications: ``enqueue(_:object:appID:url:at:)`` adds an entry to the app's open batch
/// for the object (or opens one, sent at the worker's next pass), and the generic ``Outbox`` delivers it through
/// ``WebhookDelivery``, retrying by ``OutboxPolicy/appCallbacks``.
package struct WebhookOutbox: Sendable {
    /// How long a batch gathers changes before it is sent, in real time: the webhook worker passes this often, and
    /// a batch takes entries until a pass claims it (Facebook batches an app's notifications per object). The one
    /// place this is written.
    package static let batchWindow: TimeInterval = 1

    let store: any WebhookStore
    let storage: Storage
    let clock: any GatehouseClock
    let random: any RandomSource
    let transport: any WebhookTransport
    let logger: Logger
    let journal: RequestJournal?

    package init(
        store: any WebhookStore, storage: Storage, clock: any GatehouseClock, random: any RandomSource,
        transport: any WebhookTransport, logger: Logger, journal: RequestJournal?
    ) {
        self.store = store
        self.storage = storage
        self.clock = clock
        self.random = random
        self.transport = transport
        self.logger = logger
        self.journal = journal
    }

    /// The delivering outbox, for the worker and for tests that move the clock.
    package var delivering: Outbox<WebhookDelivery> {
        Outbox(
            store: store,
            delivery: WebhookDelivery(
                store: store, apps: storage.apps, transport: transport, logger: logger, journal: journal),
            policy: .appCallbacks, clock: clock, logger: logger)
    }

    /// Adds `entry` to the app's open batch for `object` at `url`, or opens a new batch, due at once: the worker's
    /// next pass (within ``batchWindow``) claims it. Two nodes adding at once each retry on a lost compare-and-set,
    /// so no entry is lost or sent twice.
    @discardableResult
    package func enqueue(_ entry: WebhookEntry, object: WebhookObject, appID: String, url: String, at now: Date)
        async throws -> String
    {
        for _ in 0..<5 {
            guard let open = try await store.openBatch(appID: appID, object: object), open.url == url,
                let body = WebhookPayload.appending(entry, to: open.body, object)
            else { break }
            if try await store.grow(id: open.id, revision: open.revision, batchUntil: open.batchUntil, body: body) {
                return open.id
            }
        }
        // Whole seconds, as stored: the batch's compare-and-set compares the due time.
        let until = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let record = WebhookDeliveryRecord(
            id: random.uuidString(), appID: appID, object: object, url: url,
            body: WebhookPayload.body(object, entry), batchUntil: until, nextAttemptAt: until, createdAt: now)
        try await store.insert(record)
        return record.id
    }

    /// Queues a delivered or given-up notification again, as a new item due now (the console's resend).
    package func resend(_ record: WebhookDeliveryRecord) async throws -> WebhookDeliveryRecord {
        let now = clock.now()
        let copy = WebhookDeliveryRecord(
            id: random.uuidString(), appID: record.appID, object: record.object, url: record.url, body: record.body,
            batchUntil: now, nextAttemptAt: now, createdAt: now)
        try await store.insert(copy)
        return copy
    }
}

/// Webhooks' side of the outbox: signs the batch with the app secret and POSTs it as Facebook does, keeping the
/// signature, the callback's status and the start of its answer for the console.
package struct WebhookDelivery: OutboxDelivery {
    let store: any WebhookStore
    let apps: any AppStore
    let transport: any WebhookTransport
    let logger: Logger
    let journal: RequestJournal?

    package func deliver(_ record: inout WebhookDeliveryRecord) async -> OutboxAttempt {
        // The batch may have grown between the worker's read and its claim; the claim closed it, so read it again.
        if record.attempts == 1, let fresh = try? await store.find(id: record.id) {
            record.body = fresh.body
            record.revision = fresh.revision
        }
        guard let app = try? await apps.find(id: record.appID) else {
            return OutboxAttempt(.failed("the app no longer exists"))
        }
        let signature = WebhookPayload.signature256(body: record.body, secret: app.secret)
        record.signature = signature
        let request = WebhookHTTPRequest(
            method: .POST, url: record.url,
            headers: [
                ("Content-Type", "application/json"), ("X-Hub-Signature-256", signature),
                ("X-Hub-Signature", WebhookPayload.signature1(body: record.body, secret: app.secret)),
            ],
            body: record.body)
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try await transport.send(request)
        } catch {
            record.lastStatus = nil
            record.lastAnswer = nil
            return OutboxAttempt(.failed((error as? CallbackRefused)?.description ?? "no answer (\(type(of: error)))"))
        }
        record.lastStatus = answer.status
        record.lastAnswer = String(decoding: answer.body.prefix(WebhookDeliveryRecord.answerLimit), as: UTF8.self)
        guard (200..<300).contains(answer.status) else {
            return OutboxAttempt(.failed("HTTP \(answer.status)"), status: answer.status)
        }
        return OutboxAttempt(.delivered(), status: answer.status)
    }

    /// A log line, and one journal entry per attempt (the callback URL without its query, the app's status or
    /// 502, and for a failure what happened and what comes next).
    package func finished(_ record: WebhookDeliveryRecord, _ report: OutboxReport) {
        let entries = WebhookPayload.entryCount(record.body)
        let meta: Logger.Metadata = [
            "app": "\(record.appID)", "object": "\(record.object.rawValue)", "entries": "\(entries)",
            "attempt": "\(record.attempts)",
        ]
        if case .failed(let reason) = report.attempt.outcome {
            logger.warning("webhook failed", metadata: meta.merging(["reason": "\(reason)"]) { a, _ in a })
        } else {
            logger.info("webhook delivered", metadata: meta)
        }
        guard let journal, journal.isEnabled else { return }
        let status = report.attempt.status
        var explanation: String?
        if record.deliveredAt == nil {
            let what =
                status.map { "the app's webhook callback answered HTTP \($0)" }
                ?? "the webhook could not be delivered: \(record.lastError ?? "no answer")"
            explanation = what + (report.sequel.map { "; \($0)" } ?? "")
        }
        let url = String(record.url.split(separator: "?", maxSplits: 1).first ?? "")
        let elapsed = report.elapsed.components
        journal.record(
            JournalEntry(
                time: report.startedAt, kind: .callback, method: "POST",
                route: String(url.prefix(JournalEntry.routeCharacters)), status: status ?? 502,
                durationMilliseconds: Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15,
                appID: record.appID, explanation: explanation,
                parameters: [
                    .init(name: "kind", value: "webhook"), .init(name: "object", value: record.object.rawValue),
                    .init(name: "entries", value: "\(entries)"), .init(name: "attempt", value: "\(record.attempts)"),
                ]))
    }
}
