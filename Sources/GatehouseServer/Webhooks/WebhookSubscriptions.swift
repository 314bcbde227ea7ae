import Foundation
import GatehouseCore
import GatehouseProtocol
import NIOHTTP1

/// Why a subscription was refused, with Facebook's wording; the Graph edge answers it as a Graph error, the admin
/// API as a problem, the console and scenario files show the message.
package struct WebhookSubscriptionError: Error, Equatable, Sendable {
    /// Facebook's error code: 100 for a bad parameter, 2200 for a failed verification, 2201 for a wrong echo.
    package var code: Int
    /// The wire message, `(#100) …`.
    package var message: String
    /// Why, in the journal's words.
    package var explanation: String

    static func parameter(_ text: String, _ explanation: String) -> Self {
        Self(code: 100, message: "(#100) \(text)", explanation: explanation)
    }

    package var graphError: GraphError {
        GraphError(message: message, type: "OAuthException", code: code, explanation: explanation)
    }
}

/// Apps' Webhooks subscriptions, as `/{app-id}/subscriptions`, the admin API, the console and scenario files all
/// change them: parameters checked as Facebook checks them, a new or moved callback verified before it is kept.
package struct WebhookSubscriptions: Sendable {
    let store: any WebhookStore
    let transport: any WebhookTransport
    let random: any RandomSource
    let clock: any GatehouseClock

    package init(services: GatehouseServices) throws {
        guard let store = services.storage.webhooks else {
            throw WebhookSubscriptionError(
                code: 1, message: "An unknown error has occurred.", explanation: "this database keeps no webhooks")
        }
        self.store = store
        self.transport = services.webhookTransport
        self.random = services.random
        self.clock = services.clock
    }

    package func list(appID: String) async throws -> [WebhookSubscriptionRecord] {
        try await store.subscriptions(appID: appID)
    }

    /// Parses an object name, or Facebook's error for one it does not know.
    package static func object(_ name: String?) throws -> WebhookObject {
        guard let name, !name.isEmpty else {
            throw WebhookSubscriptionError.parameter(
                "The parameter object is required", "POST /{app-id}/subscriptions needs object")
        }
        guard let object = WebhookObject(rawValue: name) else {
            throw WebhookSubscriptionError.parameter(
                "Param object must be one of {\(WebhookObject.names)} - got \"\(GraphError.echo(name))\"",
                "Gatehouse offers Webhooks for the objects \(WebhookObject.names), not \(name)")
        }
        return object
    }

    /// Facebook's error for the first of `fields` that `object` does not have (scenario files check theirs here too).
    package static func check(fields: [String], of object: WebhookObject) throws {
        if let bad = fields.first(where: { !object.accepts(field: $0) }) {
            throw WebhookSubscriptionError.parameter(
                "\"\(GraphError.echo(bad))\" is not a valid field for object \"\(object.rawValue)\"",
                "\(bad) is not a field of the \(object.rawValue) object Gatehouse notifies about")
        }
    }

    /// Facebook's error for a `callback_url` that is not an http(s) URL with a host. Where it may point (https and
    /// public addresses in production) is the transport's rule, applied when it is verified.
    package static func check(callbackURL url: String) throws {
        guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme?.lowercased() ?? ""),
            parts.host?.isEmpty == false
        else {
            throw WebhookSubscriptionError.parameter(
                "Param callback_url must be a valid URL", "the callback_url is not an http(s) URL")
        }
    }

    /// Splits `fields` as Facebook reads it: comma-separated, or a JSON array of names.
    package static func fieldNames(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        if case .array(let items)? = try? JSONValue.parse(text) { return items.compactMap(\.stringValue) }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Adds `fields` to the app's subscription to `object` (creating it), verifying the callback when it is new or
    /// changed. `version` is the Graph API version the fields are recorded at; `replacingFields` makes `fields`
    /// the whole list (the admin API's `PUT`) instead of adding to it (Facebook's `POST`).
    @discardableResult
    package func subscribe(
        appID: String, object: WebhookObject, callbackURL: String?, verifyToken: String?, fields: [String],
        version: String, replacingFields: Bool = false
    ) async throws -> WebhookSubscriptionRecord {
        let existing = try await store.subscriptions(appID: appID).first { $0.object == object }
        guard let url = callbackURL.flatMap({ $0.isEmpty ? nil : $0 }) ?? existing?.callbackURL else {
            throw WebhookSubscriptionError.parameter(
                "The parameter callback_url is required",
                "a first subscription to \(object.rawValue) needs a callback_url")
        }
        guard let token = verifyToken ?? (callbackURL == nil ? existing?.verifyToken : nil) else {
            throw WebhookSubscriptionError.parameter(
                "The parameter verify_token is required", "a callback_url is verified with a verify_token")
        }
        guard !fields.isEmpty || existing != nil else {
            throw WebhookSubscriptionError.parameter(
                "The parameter fields is required", "a subscription names the fields it wants")
        }
        try Self.check(fields: fields, of: object)
        try Self.check(callbackURL: url)
        if existing == nil || existing?.callbackURL != url || existing?.verifyToken != token {
            try await verify(url: url, token: token)
        }
        let now = clock.now()
        var kept =
            replacingFields ? (existing?.fields ?? []).filter { fields.contains($0.name) } : existing?.fields ?? []
        for name in fields where !kept.contains(where: { $0.name == name }) {
            kept.append(WebhookField(name: name, version: version))
        }
        let record = WebhookSubscriptionRecord(
            appID: appID, object: object, callbackURL: url, verifyToken: token, fields: kept, active: true,
            createdAt: existing?.createdAt ?? now, updatedAt: now)
        try await store.saveSubscription(record)
        return record
    }

    /// Facebook's verification request: `GET callback?hub.mode=subscribe&hub.challenge=…&hub.verify_token=…`,
    /// accepted only when the callback answers 200 with the challenge as its body.
    package func verify(url: String, token: String) async throws {
        let challenge = random.numericID(digits: 10)
        let query = FormEncoding.encode([
            ("hub.mode", "subscribe"), ("hub.challenge", challenge), ("hub.verify_token", token),
        ])
        let target = url + (url.contains("?") ? "&" : "?") + query
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try await transport.send(WebhookHTTPRequest(method: .GET, url: target))
        } catch {
            let reason =
                (error as? CallbackRefused)?.description ?? "the callback URL did not answer (\(type(of: error)))"
            throw WebhookSubscriptionError(
                code: 2200, message: "(#2200) callback verification failed: \(reason)",
                explanation: "the verification request failed: \(reason)")
        }
        guard answer.status == 200 else {
            throw WebhookSubscriptionError(
                code: 2200, message: "(#2200) callback verification failed: Received HTTP code: \(answer.status)",
                explanation: "the callback answered the verification request with HTTP \(answer.status), not 200")
        }
        let received = String(decoding: answer.body.prefix(200), as: UTF8.self)
        guard received == challenge else {
            throw WebhookSubscriptionError(
                code: 2201,
                message: "(#2201) response does not match challenge, expected value=\"\(challenge)\", "
                    + "received=\"\(GraphError.echo(received))\"",
                explanation: "the callback did not echo hub.challenge as its whole body")
        }
    }

    /// Removes the app's subscription to `object` (every object when nil), or only `fields` of it; the last field
    /// removed removes the subscription.
    package func unsubscribe(appID: String, object: WebhookObject?, fields: [String]) async throws {
        let current = try await store.subscriptions(appID: appID)
        for subscription in current where object == nil || subscription.object == object {
            if fields.isEmpty {
                _ = try await store.deleteSubscription(appID: appID, object: subscription.object)
                continue
            }
            var changed = subscription
            changed.fields.removeAll { fields.contains($0.name) }
            changed.updatedAt = clock.now()
            if changed.fields.isEmpty {
                _ = try await store.deleteSubscription(appID: appID, object: subscription.object)
            } else {
                try await store.saveSubscription(changed)
            }
        }
    }

    /// A subscription as `GET /{app-id}/subscriptions` lists it (never the verify token).
    package static func json(_ s: WebhookSubscriptionRecord) -> JSONValue {
        [
            "object": .string(s.object.rawValue), "callback_url": .string(s.callbackURL), "active": .bool(s.active),
            "fields": .array(s.fields.map { ["name": .string($0.name), "version": .string($0.version)] }),
        ]
    }
}
