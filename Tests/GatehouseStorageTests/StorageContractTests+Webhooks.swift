import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Contract tests for Webhooks subscriptions and the notification outbox's batches, on every backend.
@Suite("Storage contract: webhooks")
struct StorageWebhookContractTests {
    static func subscription(_ object: WebhookObject, url: String, fields: [String]) -> WebhookSubscriptionRecord {
        WebhookSubscriptionRecord(
            appID: "A", object: object, callbackURL: url, verifyToken: "token",
            fields: fields.map { WebhookField(name: $0, version: "v21.0") }, createdAt: TestTime.at(1),
            updatedAt: TestTime.at(2))
    }

    @Test func subscriptionsAreSavedReplacedListedAndDeleted() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.webhooks)
            try await storage.apps.create(Fixture.app("A"))
            #expect(try await store.subscriptions(appID: "A").isEmpty)
            let user = Self.subscription(.user, url: "https://a.example/hook", fields: ["email"])
            let permissions = Self.subscription(.permissions, url: "https://a.example/p", fields: ["connected"])
            try await store.saveSubscription(user)
            try await store.saveSubscription(permissions)
            #expect(try await store.subscriptions(appID: "A") == [permissions, user])

            var moved = Self.subscription(.user, url: "https://a.example/new", fields: ["email", "name"])
            moved.createdAt = TestTime.at(50)
            moved.updatedAt = TestTime.at(60)
            try await store.saveSubscription(moved)
            var expected = moved
            expected.createdAt = TestTime.at(1)  // a replacement keeps when the subscription began
            #expect(try await store.subscriptions(appID: "A") == [permissions, expected])

            #expect(try await store.deleteSubscription(appID: "A", object: .user))
            #expect(try await store.deleteSubscription(appID: "A", object: .user) == false)
            #expect(try await store.subscriptions(appID: "A") == [permissions])
        }
    }

    @Test func anOpenBatchGrowsByCompareAndSetUntilAWorkerClaimsIt() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.webhooks)
            try await storage.apps.create(Fixture.app("A"))
            let batch = WebhookDeliveryRecord(
                id: "d1", appID: "A", object: .user, url: "https://a.example/hook", body: "{}",
                batchUntil: TestTime.at(10), nextAttemptAt: TestTime.at(10), createdAt: TestTime.at(9))
            try await store.insert(batch)
            #expect(try await store.openBatch(appID: "A", object: .user) == batch)
            #expect(try await store.openBatch(appID: "A", object: .permissions) == nil)

            #expect(try await store.grow(id: "d1", revision: 0, batchUntil: TestTime.at(10), body: "{\"a\":1}"))
            // A second writer that read revision 0 loses, and reads again.
            #expect(
                try await store.grow(id: "d1", revision: 0, batchUntil: TestTime.at(10), body: "{\"b\":2}") == false)
            let grown = try #require(try await store.find(id: "d1"))
            #expect(grown.body == "{\"a\":1}")
            #expect(grown.revision == 1)

            // A worker's claim moves the due time to its lease: the batch is closed to writers.
            #expect(
                try await store.claim(id: "d1", expectedNextAttemptAt: TestTime.at(10), leaseUntil: TestTime.at(130)))
            #expect(
                try await store.grow(id: "d1", revision: 1, batchUntil: TestTime.at(10), body: "{\"c\":3}") == false)
            #expect(try await store.openBatch(appID: "A", object: .user) == nil)

            var delivered = grown
            delivered.attempts = 1
            delivered.nextAttemptAt = nil
            delivered.deliveredAt = TestTime.at(11)
            delivered.lastStatus = 200
            delivered.lastAnswer = "ok"
            delivered.signature = "sha256=00"
            try await store.update(delivered)
            #expect(try await store.find(id: "d1") == delivered)
            #expect(try await store.deliveries(appID: "A", limit: 10) == [delivered])
            #expect(try await store.due(now: TestTime.at(1000), limit: 10).isEmpty)
        }
    }
}
