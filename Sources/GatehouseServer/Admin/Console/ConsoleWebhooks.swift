import Foundation
import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// `/console/apps/:id/webhooks`: the app's Webhooks subscriptions (the ones `/{app-id}/subscriptions` and the
/// admin API edit, verified the same way) and every notification it was sent, with its payload, signature,
/// attempts and the callback's answer; one can be sent again.
struct ConsoleWebhooks: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.appWebhooks), use: show)
        router.post(RouterPath(PagePath.Console.appSubscribe), use: subscribe)
        router.post(RouterPath(PagePath.Console.appUnsubscribe), use: unsubscribe)
        router.post(RouterPath(PagePath.Console.appWebhookResend), use: resend)
    }

    @Sendable func show(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 20, let app = try await services.storage.apps.find(id: id) else {
            return try await console.refused(request, "There is no app \(id).", status: .notFound)
        }
        return try await console.page(request, "console-webhooks", title: "\(app.name): Webhooks", nav: "apps") {
            let store = services.storage.webhooks
            let subscriptions = try await store?.subscriptions(appID: app.id) ?? []
            let sent = try await store?.deliveries(appID: app.id, limit: 50) ?? []
            return [
                "app": ["id": app.id, "name": app.name],
                "objects": WebhookObject.allCases.map(\.rawValue),
                "subscriptions": subscriptions.map { s -> [String: Any] in
                    [
                        "object": s.object.rawValue, "callbackURL": s.callbackURL, "active": s.active,
                        "fields": s.fields.map(\.name).joined(separator: ", "),
                    ]
                },
                "webhooks": sent.map { d -> [String: Any] in
                    [
                        "id": d.id, "object": d.object.rawValue, "url": d.url, "status": V1Webhooks.status(d),
                        "attempts": d.attempts, "created": PageDates.utc(d.createdAt, "yyyy-MM-dd HH:mm:ss"),
                        "payload": Self.pretty(d.body), "signature": d.signature ?? "",
                        "responseStatus": d.lastStatus.map(String.init) ?? "", "answer": d.lastAnswer ?? "",
                        "lastError": d.lastError ?? "", "resendable": d.deliveredAt != nil || d.gaveUpAt != nil,
                    ]
                },
            ]
        }
    }

    /// `POST …/webhooks/subscribe`: object, callback URL, verify token and fields (comma-separated).
    @Sendable func subscribe(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let app = try await find(context)
            do {
                let subscriptions = try WebhookSubscriptions(services: services)
                try await subscriptions.subscribe(
                    appID: app.id, object: try WebhookSubscriptions.object(form["object"]),
                    callbackURL: form["callback_url"], verifyToken: form["verify_token"],
                    fields: WebhookSubscriptions.fieldNames(form["fields"]), version: GraphAPIVersion.current)
            } catch let refused as WebhookSubscriptionError {
                JournalNote.current?.explain(refused.explanation)
                throw ConsoleInputError(refused.message)
            }
            return PagePath.Console.appWebhooks(app.id, notice: "saved")
        }
    }

    @Sendable func unsubscribe(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let app = try await find(context)
            guard let object = form["object"].flatMap(WebhookObject.init(rawValue:)) else {
                throw ConsoleInputError("Pick user or permissions.")
            }
            _ = try await services.storage.webhooks?.deleteSubscription(appID: app.id, object: object)
            return PagePath.Console.appWebhooks(app.id, notice: "saved")
        }
    }

    @Sendable func resend(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            let app = try await find(context)
            guard let store = services.storage.webhooks, let outbox = services.webhookOutbox,
                let sent = try await store.find(id: context.parameters.get("webhook") ?? ""), sent.appID == app.id
            else { throw ConsoleInputError("There is no such notification.") }
            _ = try await outbox.resend(sent)
            services.webhookDoorbell.ring()
            return PagePath.Console.appWebhooks(app.id, notice: "resent")
        }
    }

    private func find(_ context: GatehouseRequestContext) async throws -> AppRecord {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 20, let app = try await services.storage.apps.find(id: id) else {
            throw ConsoleInputError("There is no app \(id).")
        }
        return app
    }

    /// The JSON body indented for reading.
    static func pretty(_ body: String) -> String {
        guard let data = body.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data),
            let out = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        else { return body }
        return String(decoding: out, as: UTF8.self)
    }
}
