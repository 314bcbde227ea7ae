import Foundation
import GatehouseProtocol

/// A Webhooks notification the emulator sent, or is about to send, to an app's callback: what a test of a webhook
/// handler asserts on.
public struct TestWebhook: Sendable, Equatable {
    public var id: String
    /// `user` or `permissions`.
    public var object: String
    public var callbackURL: String
    /// `pending`, `retrying`, `delivered` or `gave_up`.
    public var status: String
    public var attempts: Int
    /// The JSON body as sent: `object` and `entry`.
    public var payload: JSONValue
    /// `X-Hub-Signature-256` as last sent.
    public var signature: String?
    /// The callback's HTTP status on the last attempt that reached it.
    public var responseStatus: Int?

    init(_ value: JSONValue) {
        id = value["id"]?.stringValue ?? ""
        object = value["object"]?.stringValue ?? ""
        callbackURL = value["callback_url"]?.stringValue ?? ""
        status = value["status"]?.stringValue ?? ""
        attempts = value["attempts"]?.intValue.map(Int.init) ?? 0
        payload = value["payload"] ?? .null
        signature = value["signature"]?.stringValue
        responseStatus = value["response_status"]?.intValue.map(Int.init)
    }

    /// The payload's entries (one per person).
    public var entries: [JSONValue] { payload["entry"]?.arrayValue ?? [] }
    /// Every `changed_fields` name (`user`) or `field verb` pair (`permissions`, "email granted") in the entries.
    public var changes: [String] {
        entries.flatMap { entry -> [String] in
            if let fields = entry["changed_fields"]?.arrayValue { return fields.compactMap(\.stringValue) }
            return (entry["changes"]?.arrayValue ?? []).map {
                "\($0["field"]?.stringValue ?? "") \($0["value"]?["verb"]?.stringValue ?? "")"
            }
        }
    }
}

extension GatehouseEmulator {
    /// Subscribes `app` to `fields` of `object` (`user` or `permissions`) at `callbackURL`
    /// (`PUT /admin/api/v1/apps/{id}/subscriptions/{object}`). The emulator first sends the verification request
    /// your handler must answer with `hub.challenge`; a refusal throws a 400 ``GatehouseAdminError`` whose detail
    /// is Facebook's `(#2200)` or `(#2201)` message.
    public func subscribe(
        _ app: TestApp? = nil, object: String, fields: [String], callbackURL: String, verifyToken: String
    ) async throws {
        let body: JSONValue = [
            "callback_url": .string(callbackURL), "verify_token": .string(verifyToken),
            "fields": .array(fields.map(JSONValue.string)),
        ]
        try await admin.send("PUT", "/apps/\((app ?? self.app).id)/subscriptions/\(object)", body: body)
    }

    /// The notifications sent (or about to be sent) to `app`, oldest first (`GET /admin/api/v1/apps/{id}/webhooks`).
    public func webhooks(_ app: TestApp? = nil) async throws -> [TestWebhook] {
        let reply = try await admin.send("GET", "/apps/\((app ?? self.app).id)/webhooks", query: ["limit": "100"])
        return (reply?["data"]?.arrayValue ?? []).reversed().map(TestWebhook.init)
    }

    /// Waits until `app` has been sent at least `count` notifications its callback accepted, and returns every
    /// notification (oldest first). Notifications leave about a second after the change (Gatehouse batches them
    /// per app, as Facebook does); the request that made the change never waits for them.
    /// - Throws: ``EmulatorError/unexpectedAnswer(_:)`` when `timeout` passes first.
    @discardableResult
    public func waitForWebhooks(_ app: TestApp? = nil, count: Int = 1, timeout: TimeInterval = 30) async throws
        -> [TestWebhook]
    {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            let reply = try await admin.send(
                "GET", "/apps/\((app ?? self.app).id)/webhooks",
                query: ["limit": "100", "wait": "5", "count": "\(min(count, 100))"])
            let sent = (reply?["data"]?.arrayValue ?? []).reversed().map(TestWebhook.init)
            if sent.filter({ $0.status == "delivered" }).count >= count { return sent }
            if ContinuousClock.now >= deadline {
                throw EmulatorError.unexpectedAnswer(
                    "\(count) webhooks were not delivered within \(Int(timeout)) s (\(sent.count) queued)")
            }
        }
    }
}
