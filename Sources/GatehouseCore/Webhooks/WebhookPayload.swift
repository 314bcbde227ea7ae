import Crypto
import Foundation
import GatehouseProtocol

/// One person's change as a notification entry: `changed_fields` for the `user` object, `changes` with a verb
/// for `permissions` (Facebook's shapes: developers.facebook.com/docs/graph-api/webhooks/getting-started).
package struct WebhookEntry: Sendable, Equatable {
    /// The app-scoped id of the person (`id` and `uid`).
    package var scopedID: String
    package var time: Date
    /// `user`: the fields that changed.
    package var changedFields: [String]
    /// `permissions`: (field, verb) pairs, `("email", "granted")`, `("connected", "disconnected")`.
    package var changes: [(field: String, verb: String)]

    package init(
        scopedID: String, time: Date, changedFields: [String] = [], changes: [(field: String, verb: String)] = []
    ) {
        self.scopedID = scopedID
        self.time = time
        self.changedFields = changedFields
        self.changes = changes
    }

    package static func == (a: WebhookEntry, b: WebhookEntry) -> Bool {
        a.scopedID == b.scopedID && a.time == b.time && a.changedFields == b.changedFields
            && a.changes.map { [$0.field, $0.verb] } == b.changes.map { [$0.field, $0.verb] }
    }

    /// The entry as Facebook writes it.
    package func json(_ object: WebhookObject) -> JSONValue {
        var out: JSONObject = [
            "id": .string(scopedID), "uid": .string(scopedID), "time": .int(Int64(time.timeIntervalSince1970)),
        ]
        switch object {
        case .user: out["changed_fields"] = .array(changedFields.map(JSONValue.string))
        case .permissions:
            out["changes"] = .array(
                changes.map { ["field": .string($0.field), "value": ["verb": .string($0.verb)]] })
        }
        return .object(out)
    }
}

/// A notification's body, built and grown as changes arrive during its batching window, and its signatures.
package enum WebhookPayload {
    /// Facebook sends at most this many entries in one POST; a fuller batch starts a new one.
    package static let maximumEntries = 1000

    /// `{"object": …, "entry": [entry]}`.
    package static func body(_ object: WebhookObject, _ entry: WebhookEntry) -> String {
        JSONValue.object(["object": .string(object.rawValue), "entry": .array([entry.json(object)])]).serialized()
    }

    /// `body` with `entry` added: merged into the same person's entry when there is one (fields and changes
    /// appended, the later time kept), else appended. Nil when the body is not a batch or is full.
    package static func appending(_ entry: WebhookEntry, to body: String, _ object: WebhookObject) -> String? {
        guard case .object(var root)? = try? JSONValue.parse(body), case .array(var entries)? = root["entry"] else {
            return nil
        }
        let new = entry.json(object)
        if let index = entries.firstIndex(where: { $0.objectValue?["id"]?.stringValue == entry.scopedID }),
            case .object(var existing) = entries[index], case .object(let added) = new
        {
            existing["time"] = added["time"]
            for key in ["changed_fields", "changes"] {
                guard case .array(let more)? = added[key], case .array(var have)? = existing[key] else { continue }
                for item in more where !have.contains(item) { have.append(item) }
                existing[key] = .array(have)
            }
            entries[index] = .object(existing)
        } else {
            guard entries.count < maximumEntries else { return nil }
            entries.append(new)
        }
        root["entry"] = .array(entries)
        return JSONValue.object(root).serialized()
    }

    /// The number of entries in a body (the console's count).
    package static func entryCount(_ body: String) -> Int {
        guard case .object(let root)? = try? JSONValue.parse(body), case .array(let entries)? = root["entry"] else {
            return 0
        }
        return entries.count
    }

    /// `X-Hub-Signature-256`: `sha256=` and the hex HMAC-SHA256 of the exact body bytes, keyed by the app secret.
    package static func signature256(body: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// `X-Hub-Signature`, the older header: `sha1=` and the hex HMAC-SHA1.
    package static func signature1(body: String, secret: String) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(body.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "sha1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
