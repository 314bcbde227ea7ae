import GatehouseCore
import Foundation
import Logging

/// The one outbox every account mail goes through (issue 32): confirmation, password reset, invitation.
///
/// ``enqueue(kind:userID:to:subject:text:html:)`` only writes a row, so the request that causes a message never
/// waits on the mail system. With a transport (production's sendmail command) the row is due at once and the
/// ``MailOutboxWorker`` delivers it, retrying failures by ``backoff`` (the schedule is in the database, so it
/// survives restarts and is shared by every node); after a delivery the bodies are emptied, so links do not
/// linger. Without one (development) the row is kept as it is, for `/console/mail` and the admin API.
package struct MailOutbox: Sendable {
    let store: any MailOutboxStore
    let clock: any GatehouseClock
    let random: any RandomSource
    let transport: (any MailTransport)?
    let configuration: MailConfiguration
    let logger: Logger
    /// Where each delivery attempt is recorded (the request journal), if anywhere.
    var journal: RequestJournal?

    /// Waits after the 1st, 2nd, … failed attempt; after the last one the message is given up.
    package static let backoff: [TimeInterval] = [30, 120, 600, 1800, 3600, 3 * 3600]
    /// How long one attempt may hold a row before another worker may retry it.
    static let lease: TimeInterval = 120

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

    /// When to try again after `attempts` failed attempts, or nil to give up.
    static func nextAttempt(afterFailedAttempts attempts: Int, now: Date) -> Date? {
        guard attempts >= 1, attempts <= backoff.count else { return nil }
        return now.addingTimeInterval(backoff[attempts - 1])
    }

    /// Attempts every due message once; returns them as stored afterwards.
    @discardableResult
    package func deliverDue(limit: Int = 50) async -> [MailMessageRecord] {
        guard transport != nil, let due = try? await store.due(now: clock.now(), limit: limit) else { return [] }
        var out: [MailMessageRecord] = []
        for message in due {
            if let done = await attempt(message) { out.append(done) }
        }
        return out
    }

    /// One attempt at a due message; nil when it is not due or another worker holds it.
    func attempt(_ message: MailMessageRecord) async -> MailMessageRecord? {
        let now = clock.now()
        guard let transport, let due = message.nextAttemptAt, due <= now,
            (try? await store.claim(
                id: message.id, expectedNextAttemptAt: due, leaseUntil: now.addingTimeInterval(Self.lease))) == true
        else { return nil }
        var next = message
        next.attempts += 1
        let rendered = MailMessageFormat.render(
            message, from: configuration.from, date: message.createdAt, messageID: "\(message.id)@gatehouse",
            boundary: "gh-\(message.id)")
        do {
            try await transport.send(message, rendered: rendered)
            next.deliveredAt = clock.now()
            next.nextAttemptAt = nil
            next.lastError = nil
            // Sent: the mailbox has it now; the outbox keeps only what, to whom and when.
            next.text = ""
            next.html = ""
            logger.info("mail sent", metadata: ["kind": "\(message.kind)", "attempt": "\(next.attempts)"])
        } catch {
            let reason = (error as? MailRefused)?.description ?? "\(type(of: error))"
            next.lastError = reason
            next.nextAttemptAt = Self.nextAttempt(afterFailedAttempts: next.attempts, now: now)
            if next.nextAttemptAt == nil { next.gaveUpAt = now }
            logger.warning(
                "mail not sent",
                metadata: ["kind": "\(message.kind)", "attempt": "\(next.attempts)", "reason": "\(reason)"])
        }
        do {
            try await store.update(next)
        } catch {
            logger.error("mail outcome not saved", metadata: ["id": "\(message.id)", "error": "\(error)"])
        }
        record(next, at: now)
        return next
    }

    /// One journal entry per attempt: the kind, and for a failure why and what comes next (never the address
    /// or the body, which carry the person's email and the link).
    private func record(_ message: MailMessageRecord, at time: Date) {
        guard let journal, journal.isEnabled else { return }
        var explanation: String?
        if let error = message.lastError {
            if let next = message.nextAttemptAt {
                explanation =
                    "the \(message.kind) mail was not sent (\(error)); attempt \(message.attempts) of \(Self.backoff.count + 1), next at \(JournalExplanation.clockTime(next))"
            } else {
                explanation =
                    "the \(message.kind) mail was not sent (\(error)); Gatehouse gave up after \(message.attempts) attempts"
            }
        }
        journal.record(
            JournalEntry(
                time: time, kind: .mail, method: "SEND", route: "mail/\(message.kind)",
                status: message.deliveredAt == nil ? 502 : 250,
                durationMilliseconds: 0, appID: nil, explanation: explanation,
                parameters: [
                    .init(name: "id", value: message.id), .init(name: "attempt", value: "\(message.attempts)"),
                ]))
    }
}
