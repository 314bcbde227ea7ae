import Foundation
import GatehouseCore
import GatehouseProtocol

/// `/{app-id}/subscriptions` with the app's token: the app's Webhooks subscriptions, as Facebook's Graph API
/// reference for the edge documents them (`GET` lists, `POST` subscribes after verifying the callback, `DELETE`
/// removes an object or some of its fields).
struct AppSubscriptionEndpoints: Sendable {
    let services: GatehouseServices

    func handle(_ call: GraphCall, appID: String, caller: Caller) async throws -> GraphReply {
        guard case .app(let app) = caller, app.id == appID else { throw GraphFailure(.appTokenRequired) }
        do {
            let subscriptions = try WebhookSubscriptions(services: services)
            switch call.method {
            case .get:
                let list = try await subscriptions.list(appID: app.id)
                return .json(["data": .array(list.map(WebhookSubscriptions.json))])
            case .post:
                try await subscriptions.subscribe(
                    appID: app.id, object: try WebhookSubscriptions.object(call.param("object")),
                    callbackURL: call.param("callback_url"), verifyToken: call.param("verify_token"),
                    fields: WebhookSubscriptions.fieldNames(call.param("fields")), version: call.version)
                return .success
            case .delete:
                let object = try call.param("object").map { try WebhookSubscriptions.object($0) }
                try await subscriptions.unsubscribe(
                    appID: app.id, object: object, fields: WebhookSubscriptions.fieldNames(call.param("fields")))
                return .success
            }
        } catch let refused as WebhookSubscriptionError {
            throw GraphFailure(refused.graphError)
        }
    }
}
