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

/// The persistent outbox of deauthorize and data-deletion callbacks: ``enqueue(_:app:userID:scopedUserID:at:)``
/// signs and queues a callback, and the generic ``Outbox`` delivers it through ``CallbackDelivery``, retrying by
/// ``OutboxPolicy/appCallbacks``.
package struct CallbackOutbox: Sendable {
    let storage: Storage
    let clock: any GatehouseClock
    let random: any RandomSource
    let transport: any CallbackTransport
    let logger: Logger
    /// Where each delivery attempt is recorded (the server's request journal), if anywhere.
    package var journal: RequestJournal?

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

    /// The delivering outbox, for the worker.
    package var delivering: Outbox<CallbackDelivery> {
        Outbox(
            store: storage.appCallbacks,
            delivery: CallbackDelivery(transport: transport, logger: logger, journal: journal),
            policy: .appCallbacks, clock: clock, logger: logger)
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
        await delivering.deliverDue(limit: limit)
    }

    /// One attempt at a callback that is due; nil when it is not due or another worker holds it.
    package func attempt(_ record: AppCallbackRecord) async -> AppCallbackRecord? {
        await delivering.attempt(record)
    }
}

/// App callbacks' side of the outbox: POSTs the signed form through the ``CallbackTransport``, reads a
/// data-deletion reply, and logs and journals each attempt.
package struct CallbackDelivery: OutboxDelivery {
    let transport: any CallbackTransport
    let logger: Logger
    let journal: RequestJournal?

    package func deliver(_ record: inout AppCallbackRecord) async -> OutboxAttempt {
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try await transport.post(url: record.url, form: record.body)
        } catch {
            return OutboxAttempt(.failed((error as? CallbackRefused)?.description ?? "\(type(of: error))"))
        }
        let status = answer.status
        guard (200..<300).contains(status) else { return OutboxAttempt(.failed("HTTP \(status)"), status: status) }
        guard record.kind == .dataDeletion else { return OutboxAttempt(.delivered(), status: status) }
        guard let reply = DataDeletionReply.parse(answer.body) else {
            return OutboxAttempt(
                .delivered(warning: "the app's reply had no url and confirmation_code"), status: status)
        }
        record.confirmationCode = reply.confirmationCode
        record.statusURL = reply.url
        return OutboxAttempt(.delivered(), status: status)
    }

    /// A log line, and one journal entry per attempt: the app, the callback URL (without its query), the app's
    /// status (502 when there was no answer) and, for a failure, what happened and what comes next.
    package func finished(_ callback: AppCallbackRecord, _ report: OutboxReport) {
        let kind = callback.kind.rawValue
        if case .failed(let reason) = report.attempt.outcome {
            logger.warning(
                "app callback failed",
                metadata: [
                    "app": "\(callback.appID)", "kind": "\(kind)", "attempt": "\(callback.attempts)",
                    "reason": "\(reason)",
                ])
        } else {
            logger.info(
                "app callback delivered",
                metadata: ["app": "\(callback.appID)", "kind": "\(kind)", "attempt": "\(callback.attempts)"])
        }
        guard let journal, journal.isEnabled else { return }
        let status = report.attempt.status
        let url = String(callback.url.split(separator: "?", maxSplits: 1).first ?? "")
        var explanation: String?
        if callback.deliveredAt == nil || callback.lastError != nil {
            let what =
                status.map { "the app's \(kind) callback URL answered HTTP \($0)" }
                ?? "the \(kind) callback could not be delivered: \(callback.lastError ?? "no answer")"
            explanation = what + (report.sequel.map { "; \($0)" } ?? callback.lastError.map { ": \($0)" } ?? "")
        }
        let elapsed = report.elapsed.components
        journal.record(
            JournalEntry(
                time: report.startedAt, kind: .callback, method: "POST",
                route: String(url.prefix(JournalEntry.routeCharacters)),
                status: status ?? 502,
                durationMilliseconds: Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15,
                appID: callback.appID, explanation: explanation,
                parameters: [.init(name: "kind", value: kind), .init(name: "attempt", value: "\(callback.attempts)")]))
    }
}

/// Tells apps through the outbox: the removal is recorded at once and delivered (and retried) in the background.
package struct OutboxAppCallbackNotifier: AppCallbackNotifier {
    package let outbox: CallbackOutbox
    /// Wakes the callbacks' ``OutboxWorker`` for a first attempt at once.
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
