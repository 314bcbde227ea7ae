import Foundation

/// An app's subscription to one Webhooks object (`POST /{app-id}/subscriptions`), accepted once its callback
/// answered the verification request.
package struct WebhookSubscriptionRecord: Sendable, Codable, Equatable {
    package var appID: String
    package var object: WebhookObject
    package var callbackURL: String
    /// Sent back to the callback in every verification request (`hub.verify_token`); never listed.
    package var verifyToken: String
    package var fields: [WebhookField]
    package var active: Bool
    package var createdAt: Date
    package var updatedAt: Date

    package init(
        appID: String, object: WebhookObject, callbackURL: String, verifyToken: String, fields: [WebhookField],
        active: Bool = true, createdAt: Date, updatedAt: Date
    ) {
        self.appID = appID
        self.object = object
        self.callbackURL = callbackURL
        self.verifyToken = verifyToken
        self.fields = fields
        self.active = active
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the subscription covers `field`.
    package func covers(_ field: String) -> Bool { active && fields.contains { $0.name == field } }
}

/// One notification POST in the outbox: a batch of entries for one app and object, open to more entries until a
/// worker claims it (the worker passes every ``WebhookOutbox``'s batch window of real time, so a fixed or moved
/// clock batches too), then delivered, retried and given up on like every outbox item.
package struct WebhookDeliveryRecord: Sendable, Codable, Equatable, OutboxItem {
    package var id: String
    package var appID: String
    package var object: WebhookObject
    package var url: String
    /// The JSON body, exactly as signed and sent.
    package var body: String
    /// Bumped by every change to an open batch's body, so two nodes adding to it at once cannot lose an entry.
    package var revision: Int
    /// The batch's first due time; while `nextAttemptAt` still equals it, no worker has claimed the batch.
    package var batchUntil: Date
    package var attempts: Int
    package var nextAttemptAt: Date?
    package var createdAt: Date
    package var deliveredAt: Date?
    package var gaveUpAt: Date?
    package var lastError: String?
    /// The callback's HTTP status on the last attempt that reached it.
    package var lastStatus: Int?
    /// The start of the callback's last answer (at most ``WebhookDeliveryRecord/answerLimit`` characters).
    package var lastAnswer: String?
    /// `X-Hub-Signature-256` as last sent.
    package var signature: String?

    package static let answerLimit = 1024

    package init(
        id: String, appID: String, object: WebhookObject, url: String, body: String, revision: Int = 0,
        batchUntil: Date, attempts: Int = 0, nextAttemptAt: Date?, createdAt: Date, deliveredAt: Date? = nil,
        gaveUpAt: Date? = nil, lastError: String? = nil, lastStatus: Int? = nil, lastAnswer: String? = nil,
        signature: String? = nil
    ) {
        self.id = id
        self.appID = appID
        self.object = object
        self.url = url
        self.body = body
        self.revision = revision
        self.batchUntil = batchUntil
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.gaveUpAt = gaveUpAt
        self.lastError = lastError
        self.lastStatus = lastStatus
        self.lastAnswer = lastAnswer
        self.signature = signature
    }
}

/// Apps' Webhooks subscriptions (`webhook_subscriptions`) and the outbox of their notifications
/// (`webhook_deliveries`).
package protocol WebhookStore: OutboxStore where Item == WebhookDeliveryRecord {
    /// An app's subscriptions, in object order.
    func subscriptions(appID: String) async throws -> [WebhookSubscriptionRecord]
    /// Inserts or replaces the app's subscription to its object.
    func saveSubscription(_ subscription: WebhookSubscriptionRecord) async throws
    /// False when there was none.
    func deleteSubscription(appID: String, object: WebhookObject) async throws -> Bool
    /// The app's batch for `object` still open (unattempted and unclaimed), if any.
    func openBatch(appID: String, object: WebhookObject) async throws -> WebhookDeliveryRecord?
    /// Replaces an open batch's body if it is still at `revision` and unclaimed; false when another writer or a
    /// worker got there first.
    func grow(id: String, revision: Int, batchUntil: Date, body: String) async throws -> Bool
    /// An app's notifications, newest first.
    func deliveries(appID: String, limit: Int) async throws -> [WebhookDeliveryRecord]
}
