import GatehouseCore
import AsyncHTTPClient
import Foundation
import GatehouseProtocol
import Logging
import NIOCore
import NIOHTTP1

/// POSTs one form to an app's callback URL. Injected so tests can count calls; the default uses AsyncHTTPClient.
package protocol CallbackTransport: Sendable {
    /// The HTTP status and up to 64 KiB of the reply body.
    func post(url: String, form: String) async throws -> (status: Int, body: [UInt8])
}

/// The persistent outbox of deauthorize and data-deletion callbacks.
///
/// Each callback is a row with its next attempt time. `deliverDue()` (called by the server's worker every few
/// seconds, and by tests after moving the injected clock) takes due rows one at a time with a lease, POSTs,
/// and records the outcome; a failure schedules the next attempt by ``backoff``. Because the schedule lives
/// in the database, retries survive a restart and are shared by every node.
package struct CallbackOutbox: Sendable {
    let storage: Storage
    let clock: any GatehouseClock
    let random: any RandomSource
    let transport: any CallbackTransport
    let logger: Logger
    /// Where each delivery attempt is recorded (the server's request journal), if anywhere.
    package var journal: RequestJournal?

    /// Waits after the 1st, 2nd, … failed attempt; after the last one Gatehouse gives up.
    package static let backoff: [TimeInterval] = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600]
    /// How long one attempt may hold a row before another worker may retry it.
    static let lease: TimeInterval = 120

    package init(
        storage: Storage, clock: any GatehouseClock, random: any RandomSource = SystemRandomSource(),
        transport: any CallbackTransport,
        logger: Logger
    ) {
        self.random = random
        self.storage = storage
        self.clock = clock
        self.transport = transport
        self.logger = logger
    }

    /// When to try again after `attempts` failed attempts, or nil to give up.
    package static func nextAttempt(afterFailedAttempts attempts: Int, now: Date) -> Date? {
        guard attempts >= 1, attempts <= backoff.count else { return nil }
        return now.addingTimeInterval(backoff[attempts - 1])
    }

    /// Queues a callback of `kind` for `app` about one person; nil when the app registered no URL for it.
    @discardableResult
    package func enqueue(_ kind: AppCallbackKind, app: AppRecord, userID: String, scopedUserID: String, at: Date)
        async throws -> AppCallbackRecord?
    {
        let url = kind == .deauthorize ? app.deauthorizeCallbackURL : app.dataDeletionCallbackURL
        guard let url, !url.isEmpty else { return nil }
        let issued = Int64(at.timeIntervalSince1970)
        var payload: JSONObject = ["algorithm": "HMAC-SHA256"]
        // Facebook's data-deletion payload also carries `expires`.
        if kind == .dataDeletion { payload["expires"] = .int(issued + 3600) }
        payload["issued_at"] = .int(issued)
        payload["user_id"] = .string(scopedUserID)
        let body = FormEncoding.encode([("signed_request", SignedRequest.make(payload: payload, secret: app.secret))])
        let record = AppCallbackRecord(
            id: random.uuidString(), appID: app.id, kind: kind, userID: userID, url: url, body: body, nextAttemptAt: at,
            createdAt: at)
        try await storage.appCallbacks.insert(record)
        return record
    }

    /// Attempts every due callback once; returns them as stored afterwards.
    @discardableResult
    package func deliverDue(limit: Int = 50) async -> [AppCallbackRecord] {
        guard let due = try? await storage.appCallbacks.due(now: clock.now(), limit: limit) else { return [] }
        var out: [AppCallbackRecord] = []
        for record in due {
            if let done = await attempt(record) { out.append(done) }
        }
        return out
    }

    /// One attempt at a callback that is due; nil when it is not due or another worker holds it.
    package func attempt(_ record: AppCallbackRecord) async -> AppCallbackRecord? {
        let now = clock.now()
        guard let due = record.nextAttemptAt, due <= now,
            (try? await storage.appCallbacks.claim(
                id: record.id, expectedNextAttemptAt: due, leaseUntil: now.addingTimeInterval(Self.lease))) == true
        else { return nil }
        var next = record
        next.attempts += 1
        let started = ContinuousClock.now
        var answered: Int?
        defer { journal.map { journalAttempt(next, status: answered, in: $0, at: now, started: started) } }
        do {
            let (status, body) = try await transport.post(url: record.url, form: record.body)
            answered = status
            if (200..<300).contains(status) {
                next.deliveredAt = clock.now()
                next.nextAttemptAt = nil
                next.lastError = nil
                if record.kind == .dataDeletion {
                    if let reply = DataDeletionReply.parse(body) {
                        next.confirmationCode = reply.confirmationCode
                        next.statusURL = reply.url
                    } else {
                        next.lastError = "the app's reply had no url and confirmation_code"
                    }
                }
                logger.info(
                    "app callback delivered",
                    metadata: [
                        "app": "\(record.appID)", "kind": "\(record.kind.rawValue)", "attempt": "\(next.attempts)",
                    ])
            } else {
                fail(&next, reason: "HTTP \(status)")
            }
        } catch {
            fail(&next, reason: (error as? CallbackRefused)?.description ?? "\(type(of: error))")
        }
        do {
            try await storage.appCallbacks.update(next)
        } catch {
            logger.error("app callback outcome not saved", metadata: ["app": "\(record.appID)", "error": "\(error)"])
        }
        return next
    }

    /// One journal entry per attempt: the app, the callback URL (without its query), the app's status (502 when
    /// there was no answer) and, for a failure, what happened and what comes next.
    private func journalAttempt(
        _ callback: AppCallbackRecord, status: Int?, in journal: RequestJournal, at time: Date,
        started: ContinuousClock.Instant
    ) {
        guard journal.isEnabled else { return }
        let elapsed = ContinuousClock.now - started
        let url = String(callback.url.split(separator: "?", maxSplits: 1).first ?? "")
        var explanation: String?
        if callback.deliveredAt == nil || callback.lastError != nil {
            let what =
                status.map { "the app's \(callback.kind.rawValue) callback URL answered HTTP \($0)" }
                ?? "the \(callback.kind.rawValue) callback could not be delivered: \(callback.lastError ?? "no answer")"
            if let next = callback.nextAttemptAt {
                explanation =
                    what
                    + "; attempt \(callback.attempts) of \(Self.backoff.count + 1), next at \(JournalExplanation.clockTime(next))"
            } else if callback.gaveUpAt != nil {
                explanation = what + "; Gatehouse gave up after \(callback.attempts) attempts"
            } else {
                explanation = what + (callback.lastError.map { ": \($0)" } ?? "")
            }
        }
        journal.record(
            JournalEntry(
                time: time, kind: .callback, method: "POST", route: String(url.prefix(200)), status: status ?? 502,
                durationMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds)
                    / 1e15,
                appID: callback.appID, explanation: explanation,
                parameters: [
                    .init(name: "kind", value: callback.kind.rawValue),
                    .init(name: "attempt", value: "\(callback.attempts)"),
                ]))
    }

    private func fail(_ record: inout AppCallbackRecord, reason: String) {
        let now = clock.now()
        record.lastError = reason
        record.nextAttemptAt = Self.nextAttempt(afterFailedAttempts: record.attempts, now: now)
        if record.nextAttemptAt == nil { record.gaveUpAt = now }
        logger.warning(
            "app callback failed",
            metadata: [
                "app": "\(record.appID)", "kind": "\(record.kind.rawValue)", "attempt": "\(record.attempts)",
                "reason": "\(reason)",
            ])
    }

}

/// Tells apps through the outbox: the removal is recorded at once and delivered (and retried) in the background.
package struct OutboxAppCallbackNotifier: AppCallbackNotifier {
    package let outbox: CallbackOutbox
    /// Wakes the ``CallbackOutboxWorker`` for a first attempt at once.
    package let doorbell: OutboxDoorbell

    package init(outbox: CallbackOutbox, doorbell: OutboxDoorbell) {
        self.outbox = outbox
        self.doorbell = doorbell
    }

    package func appRemoved(app: AppRecord, scopedUserID: String, at: Date) async {
        do {
            let userID = try await outbox.storage.users.userID(appID: app.id, scopedID: scopedUserID) ?? ""
            guard
                try await outbox.enqueue(.deauthorize, app: app, userID: userID, scopedUserID: scopedUserID, at: at)
                    != nil
            else { return }
            // The person's request never waits on the app's server: the worker makes the attempt.
            doorbell.ring()
        } catch {
            outbox.logger.error("deauthorize callback not queued", metadata: ["app": "\(app.id)", "error": "\(error)"])
        }
    }
}

/// The app's answer to a data-deletion callback: `{"url": "...", "confirmation_code": "..."}`. Facebook's own
/// sample answers with unquoted keys and single quotes (`{ url: '…', confirmation_code: '…' }`), so both are read.
package enum DataDeletionReply {
    package static func parse(_ body: [UInt8]) -> (url: String, confirmationCode: String)? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        if case .object(let object)? = try? JSONValue.parse(Data(text.utf8)) {
            guard let url = object["url"]?.stringValue, let code = object["confirmation_code"]?.stringValue else {
                return nil
            }
            return clean(url, code)
        }
        guard let url = looseValue("url", in: text), let code = looseValue("confirmation_code", in: text) else {
            return nil
        }
        return clean(url, code)
    }

    private static func clean(_ url: String, _ code: String) -> (String, String)? {
        guard !code.isEmpty, code.count <= 256, url.count <= 2048, url.hasPrefix("https://") || url.hasPrefix("http://")
        else { return nil }
        return (url, code)
    }

    /// `key: 'value'` or `"key": "value"` in a JavaScript-style object literal.
    private static func looseValue(_ key: String, in text: String) -> String? {
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            // A key starts at a boundary and may be quoted.
            var j = i
            if chars[j] == "'" || chars[j] == "\"" { j += 1 }
            let keyChars = Array(key)
            if j + keyChars.count <= chars.count, Array(chars[j..<j + keyChars.count]) == keyChars,
                i == 0 || !(chars[i - 1].isLetter || chars[i - 1] == "_")
            {
                var k = j + keyChars.count
                if k < chars.count, chars[k] == "'" || chars[k] == "\"" { k += 1 }
                while k < chars.count, chars[k].isWhitespace { k += 1 }
                if k < chars.count, chars[k] == ":" {
                    k += 1
                    while k < chars.count, chars[k].isWhitespace { k += 1 }
                    if k < chars.count, chars[k] == "'" || chars[k] == "\"" {
                        let quote = chars[k]
                        var value = ""
                        k += 1
                        while k < chars.count, chars[k] != quote { value.append(chars[k]); k += 1 }
                        if k < chars.count { return value }
                    }
                }
            }
            i += 1
        }
        return nil
    }
}
