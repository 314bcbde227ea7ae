import GatehouseCore
import Foundation
import Logging

/// The one outbox every account mail goes through (issue 32): confirmation, password reset, invitation.
///
/// ``enqueue(kind:userID:to:subject:text:html:)`` only writes a row, so the request that causes a message never
/// waits on the mail system. With a transport (production's sendmail command) the row is due at once and the
/// ``OutboxWorker`` delivers it through ``MailDelivery``, retrying failures by ``OutboxPolicy/mail``; after a
/// delivery the bodies are emptied, so links do not linger. Without one (development) the row is kept as it is,
/// for `/console/mail` and the admin API.
package struct MailOutbox: Sendable {
    let store: any MailOutboxStore
    let clock: any GatehouseClock
    let random: any RandomSource
    let transport: (any MailTransport)?
    let configuration: MailConfiguration
    let logger: Logger
    /// Where each delivery attempt is recorded (the request journal), if anywhere.
    var journal: RequestJournal?

    init(
        store: any MailOutboxStore, clock: any GatehouseClock, random: any RandomSource,
        transport: (any MailTransport)?,
        configuration: MailConfiguration, logger: Logger, journal: RequestJournal?
    ) {
        self.store = store
        self.clock = clock
        self.random = random
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
        self.journal = journal
    }

    /// Whether messages leave the server (production's transport) or are only kept (development).
    package var sends: Bool { transport != nil }

    /// The delivering outbox, for the worker; nil when messages are only kept.
    package var delivering: Outbox<MailDelivery>? {
        guard let transport else { return nil }
        return Outbox(
            store: store,
            delivery: MailDelivery(transport: transport, from: configuration.from, logger: logger, journal: journal),
            policy: .mail, clock: clock, logger: logger)
    }

    /// Queues one message and returns it as stored.
    @discardableResult
    func enqueue(kind: String, userID: String?, to: String, subject: String, text: String, html: String) async throws
        -> MailMessageRecord
    {
        let now = clock.now()
        let message = MailMessageRecord(
            id: random.uuidString(), kind: kind, userID: userID, to: to, subject: subject, text: text, html: html,
            createdAt: now,
            nextAttemptAt: sends ? now : nil)
        try await store.insert(message)
        return message
    }

    /// Attempts every due message once (none while messages are only kept); returns them as stored afterwards.
    @discardableResult
    package func deliverDue(limit: Int = 50) async -> [MailMessageRecord] {
        await delivering?.deliverDue(limit: limit) ?? []
    }
}

/// Mail's side of the outbox: renders a message, hands it to the ``MailTransport``, and logs and journals each
/// attempt.
package struct MailDelivery: OutboxDelivery {
    let transport: any MailTransport
    /// The `From:` header (`mail.from`).
    let from: String
    let logger: Logger
    let journal: RequestJournal?

    package func deliver(_ message: inout MailMessageRecord) async -> OutboxAttempt {
        let rendered = MailMessageFormat.render(
            message, from: from, date: message.createdAt, messageID: "\(message.id)@gatehouse",
            boundary: "gh-\(message.id)")
        do {
            try await transport.send(message, rendered: rendered)
            // Sent: the mailbox has it now; the outbox keeps only what, to whom and when.
            message.text = ""
            message.html = ""
            return OutboxAttempt(.delivered())
        } catch {
            return OutboxAttempt(.failed((error as? MailRefused)?.description ?? "\(type(of: error))"))
        }
    }

    /// A log line, and one journal entry per attempt: the kind, and for a failure why and what comes next (never
    /// the address or the body, which carry the person's email and the link).
    package func finished(_ message: MailMessageRecord, _ report: OutboxReport) {
        var explanation: String?
        if case .failed(let reason) = report.attempt.outcome {
            logger.warning(
                "mail not sent",
                metadata: ["kind": "\(message.kind)", "attempt": "\(message.attempts)", "reason": "\(reason)"])
            explanation = "the \(message.kind) mail was not sent (\(reason)); \(report.sequel ?? "")"
        } else {
            logger.info("mail sent", metadata: ["kind": "\(message.kind)", "attempt": "\(message.attempts)"])
        }
        guard let journal, journal.isEnabled else { return }
        journal.record(
            JournalEntry(
                time: report.startedAt, kind: .mail, method: "SEND", route: "mail/\(message.kind)",
                status: message.deliveredAt == nil ? 502 : 250,
                durationMilliseconds: 0, appID: nil, explanation: explanation,
                parameters: [
                    .init(name: "id", value: message.id), .init(name: "attempt", value: "\(message.attempts)"),
                ]))
    }
}
