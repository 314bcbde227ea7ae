import Foundation
import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// `/apps/{id}/subscriptions` and `/apps/{id}/webhooks`: an app's Webhooks subscriptions (the same ones
/// `/{app-id}/subscriptions` edits, verified the same way) and the notifications it was sent, with each one's
/// payload, signature, attempts and the callback's answer; `?wait=` holds the answer until they have arrived.
struct V1Webhooks: Sendable {
    let services: GatehouseServices

    /// The longest `?wait=` (seconds).
    static let longestWait = 5

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/apps/{id}/subscriptions") { call in
                let app = try await V1Apps(services: services).find(call.parameter("id"))
                let list = try await subscriptions().list(appID: app.id)
                return AdminAPIv1.reply(["data": .array(list.map(Self.json))])
            },
            V1Route(method: .put, path: "/apps/{id}/subscriptions/{object}") { try await put($0) },
            V1Route(method: .delete, path: "/apps/{id}/subscriptions/{object}") { call in
                let app = try await V1Apps(services: services).find(call.parameter("id"))
                let object = try Self.object(call.parameter("object"))
                guard try await subscriptions().list(appID: app.id).contains(where: { $0.object == object }) else {
                    throw Problem.notFound("app \(app.id) has no subscription to \(object.rawValue)")
                }
                try await subscriptions().unsubscribe(appID: app.id, object: object, fields: [])
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .get, path: "/apps/{id}/webhooks") { try await list($0) },
            V1Route(method: .post, path: "/apps/{id}/webhooks/{webhook_id}/resend") { call in
                // The document's body is an empty object: a field it does not name is refused, not ignored.
                try call.body().finish()
                let app = try await V1Apps(services: services).find(call.parameter("id"))
                let (store, outbox) = try Self.outbox(services)
                guard let sent = try await store.find(id: call.parameter("webhook_id")), sent.appID == app.id else {
                    throw Problem.notFound(
                        "app \(app.id) has no webhook \(GraphError.echo(call.parameter("webhook_id")))")
                }
                let copy = try await outbox.resend(sent)
                services.webhookDoorbell.ring()
                return AdminAPIv1.reply(Self.json(copy), status: .accepted)
            },
        ]
    }

    private func subscriptions() throws -> WebhookSubscriptions {
        do { return try WebhookSubscriptions(services: services) } catch let refused as WebhookSubscriptionError {
            throw Problem(.unavailable, refused.explanation)
        }
    }

    static func outbox(_ services: GatehouseServices) throws -> (any WebhookStore, WebhookOutbox) {
        guard let store = services.storage.webhooks, let outbox = services.webhookOutbox else {
            throw Problem(.unavailable, "this database keeps no webhooks")
        }
        return (store, outbox)
    }

    static func object(_ name: String) throws -> WebhookObject {
        guard let object = WebhookObject(rawValue: name) else {
            throw Problem.notFound("there is no Webhooks object \(GraphError.echo(name)) (\(WebhookObject.names))")
        }
        return object
    }

    /// `PUT`: `{callback_url, verify_token, fields}` sets the subscription (its fields are the list given), after
    /// the callback answered the verification request when it is new or changed.
    private func put(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let app = try await V1Apps(services: services).find(call.parameter("id"))
        let object = try Self.object(call.parameter("object"))
        let url = try body.string("callback_url", max: 2048)
        let token = try body.string("verify_token", max: 256)
        guard let fields = try body.strings("fields", maxCount: 100), !fields.isEmpty else {
            throw Problem.validation("fields", "fields is required: at least one field name")
        }
        try body.finish()
        do {
            let saved = try await subscriptions().subscribe(
                appID: app.id, object: object, callbackURL: url, verifyToken: token, fields: fields,
                version: GraphAPIVersion.current, replacingFields: true)
            return AdminAPIv1.reply(Self.json(saved))
        } catch let refused as WebhookSubscriptionError {
            JournalNote.current?.explain(refused.explanation)
            let field = refused.code == 100 ? Self.field(of: refused.message) : "callback_url"
            throw Problem.validation(field, refused.message)
        }
    }

    /// The body field a `(#100)` message is about.
    private static func field(of message: String) -> String {
        for name in ["callback_url", "verify_token", "fields"] where message.contains(name) { return name }
        return message.contains("valid field") ? "fields" : "callback_url"
    }

    /// `GET …/webhooks?limit=&wait=&count=`: newest first; with `wait`, answers once `count` (default 1) have been
    /// delivered or `wait` seconds have passed, whichever is first.
    private func list(_ call: V1Call) async throws -> Response {
        let app = try await V1Apps(services: services).find(call.parameter("id"))
        let limit = try Self.integer(call, "limit", 1...100) ?? 50
        let wait = try Self.integer(call, "wait", 0...Self.longestWait) ?? 0
        let count = try Self.integer(call, "count", 1...100) ?? 1
        let (store, _) = try Self.outbox(services)
        let deadline = ContinuousClock.now + .seconds(wait)
        var items = try await store.deliveries(appID: app.id, limit: limit)
        while ContinuousClock.now < deadline, items.filter({ $0.deliveredAt != nil }).count < count {
            try await Task.sleep(for: .milliseconds(100))
            items = try await store.deliveries(appID: app.id, limit: limit)
        }
        return AdminAPIv1.reply(["data": .array(items.map(Self.json))])
    }

    static func integer(_ call: V1Call, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
        guard let text = call.query(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw Problem.validation(
                name, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    static func json(_ s: WebhookSubscriptionRecord) -> JSONValue {
        [
            "object": .string(s.object.rawValue), "callback_url": .string(s.callbackURL), "active": .bool(s.active),
            "fields": .array(s.fields.map { ["name": .string($0.name), "version": .string($0.version)] }),
            "created_time": AdminAPIv1.time(s.createdAt), "updated_time": AdminAPIv1.time(s.updatedAt),
        ]
    }

    /// Where a notification stands: waiting for its window or a retry, delivered, or given up.
    static func status(_ d: WebhookDeliveryRecord) -> String {
        if d.deliveredAt != nil { return "delivered" }
        if d.gaveUpAt != nil { return "gave_up" }
        return d.attempts == 0 ? "pending" : "retrying"
    }

    static func json(_ d: WebhookDeliveryRecord) -> JSONValue {
        let payload = (try? JSONValue.parse(d.body)) ?? .null
        return [
            "id": .string(d.id), "object": .string(d.object.rawValue), "callback_url": .string(d.url),
            "status": .string(status(d)), "attempts": .int(Int64(d.attempts)),
            "created_time": AdminAPIv1.time(d.createdAt),
            "next_attempt_time": d.nextAttemptAt.map(AdminAPIv1.time) ?? .null,
            "delivered_time": d.deliveredAt.map(AdminAPIv1.time) ?? .null,
            "last_error": d.lastError.map(JSONValue.string) ?? .null,
            "response_status": d.lastStatus.map { .int(Int64($0)) } ?? .null,
            "response_body": d.lastAnswer.map(JSONValue.string) ?? .null,
            "signature": d.signature.map(JSONValue.string) ?? .null,
            "payload": payload,
        ]
    }
}
