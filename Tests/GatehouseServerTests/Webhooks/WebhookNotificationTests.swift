import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 42 item 3: people's changes become signed notifications in Facebook's shape, batched per app and
/// object, only with what the app may see, delivered and retried by the outbox.
@Suite struct WebhookNotificationTests {
    /// A server whose app subscribed to `user` email and name and to `permissions`.
    static func subscribed(_ receiver: RecordingWebhookTransport, mode: ServerMode = .development) async throws
        -> TestServer
    {
        let server = try await TestServer.make(mode: mode, webhookTransport: receiver)
        let subscriptions = try WebhookSubscriptions(services: server.services)
        try await subscriptions.subscribe(
            appID: server.app.id, object: .user, callbackURL: "https://hooks.example/fb", verifyToken: "t",
            fields: ["email", "name"], version: "v21.0")
        try await subscriptions.subscribe(
            appID: server.app.id, object: .permissions, callbackURL: "https://hooks.example/fb", verifyToken: "t",
            fields: ["email", "user_birthday", "connected"], version: "v21.0")
        return server
    }

    /// One pass of the webhook worker (the server's clock is fixed: batching is by the worker's passes).
    static func deliver(_ server: TestServer) async throws -> [WebhookDeliveryRecord] {
        return await try #require(server.services.webhookOutbox).delivering.deliverDue()
    }

    @Test(arguments: [ServerMode.development, .production])
    func anEmailChangeIsPostedSignedInFacebooksShape(mode: ServerMode) async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await Self.subscribed(receiver, mode: mode)
        _ = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        _ = try await Self.deliver(server)  // the first login's permissions notification
        let before = receiver.posts.count
        var alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
        alice.email = "alice.new@example.com"
        try await server.services.storage.users.update(alice)
        // Nothing leaves before the worker's pass: the request that made the change never waits on the app.
        #expect(receiver.posts.count == before)
        let sent = try await Self.deliver(server)
        #expect(sent.count == 1)
        let post = try #require(receiver.posts.last)
        let scoped = try await server.scopedID(server.alice)
        let time = Int(server.clock.now().timeIntervalSince1970)
        #expect(post.url == "https://hooks.example/fb")
        #expect(
            post.body
                == #"{"object":"user","entry":[{"id":"\#(scoped)","uid":"\#(scoped)","time":\#(time),"#
                + #""changed_fields":["email"]}]}"#)
        #expect(post.header("Content-Type") == "application/json")
        let body = try #require(post.body)
        #expect(
            post.header("X-Hub-Signature-256") == WebhookPayload.signature256(body: body, secret: server.app.secret))
        #expect(post.header("X-Hub-Signature") == WebhookPayload.signature1(body: body, secret: server.app.secret))
        #expect(sent.first?.deliveredAt != nil)
        #expect(sent.first?.lastStatus == 200)
        #expect(sent.first?.signature == post.header("X-Hub-Signature-256"))
        try await server.close()
    }

    @Test func anAppHearsOnlyOfFieldsThePersonGrantedIt() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await Self.subscribed(receiver)
        _ = try await server.token(for: server.bob, granted: ["public_profile"])
        _ = try await Self.deliver(server)
        let before = receiver.posts.count
        var bob = try #require(try await server.services.storage.users.find(id: server.bob.id))
        bob.email = "bob.new@example.com"
        try await server.services.storage.users.update(bob)
        #expect(try await Self.deliver(server).isEmpty)
        #expect(receiver.posts.count == before)
        bob.email = "bob.newer@example.com"
        bob.lastName = "Black"
        try await server.services.storage.users.update(bob)
        _ = try await Self.deliver(server)
        let post = try #require(receiver.posts.last)
        #expect(post.body?.contains(#""changed_fields":["name"]"#) == true)
        #expect(post.body?.contains("email") == false)
        try await server.close()
    }

    @Test func changesInOneWindowAreOnePost() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await Self.subscribed(receiver)
        _ = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        _ = try await server.token(for: server.bob, granted: ["public_profile", "email"])
        _ = try await Self.deliver(server)
        let before = receiver.posts.count
        for (id, email) in [(server.alice.id, "a2@example.com"), (server.bob.id, "b2@example.com")] {
            var person = try #require(try await server.services.storage.users.find(id: id))
            person.email = email
            try await server.services.storage.users.update(person)
        }
        var alice = try #require(try await server.services.storage.users.find(id: server.alice.id))
        alice.firstName = "Alicia"
        try await server.services.storage.users.update(alice)
        let sent = try await Self.deliver(server)
        #expect(sent.count == 1)
        #expect(receiver.posts.count == before + 1)
        let entries = try #require(JSONValue.parse(receiver.posts.last?.body ?? "")["entry"]?.arrayValue)
        #expect(entries.count == 2)
        #expect(entries[0]["changed_fields"] == ["email", "name"])
        #expect(entries[1]["changed_fields"] == ["email"])
        try await server.close()
    }

    @Test func grantsRevocationsAndRemovalReachThePermissionsSubscription() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await Self.subscribed(receiver)
        try await server.run { client in
            // A first login that declines email, then one that grants it.
            _ = try await server.token(for: server.alice, granted: ["public_profile"], declined: ["email"])
            _ = try await Self.deliver(server)
            let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
            _ = try await Self.deliver(server)
            _ = try await client.execute(uri: "/v21.0/me/permissions/email?access_token=\(token)", method: .delete)
            _ = try await Self.deliver(server)
            _ = try await client.execute(uri: "/v21.0/me/permissions?access_token=\(token)", method: .delete)
            _ = try await Self.deliver(server)
            let scoped = try await server.scopedID(server.alice)
            let changes = receiver.posts.compactMap { post -> JSONValue? in
                guard let body = post.body, let root = try? JSONValue.parse(body), root["object"] == "permissions"
                else {
                    return nil
                }
                #expect(root["entry"]?[0]?["id"]?.stringValue == scoped)
                return root["entry"]?[0]?["changes"]
            }
            #expect(
                changes == [
                    [["field": "connected", "value": ["verb": "connected"]]],
                    [["field": "email", "value": ["verb": "granted"]]],
                    [["field": "email", "value": ["verb": "revoked"]]],
                    [["field": "connected", "value": ["verb": "disconnected"]]],
                ])
        }
    }

    @Test func aFailedPostIsRetriedByTheOutboxPolicy() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await Self.subscribed(receiver)
        receiver.postStatuses = [500]
        _ = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        let failed = try #require(try await Self.deliver(server).first)
        #expect(failed.lastError == "HTTP 500")
        #expect(failed.lastStatus == 500)
        #expect(failed.lastAnswer == "ok")
        #expect(failed.nextAttemptAt == server.clock.now().addingTimeInterval(30))
        server.clock.advance(by: 30)
        let retried = try #require(await server.services.webhookOutbox?.delivering.deliverDue().first)
        #expect(retried.attempts == 2)
        #expect(retried.deliveredAt != nil)
        #expect(receiver.posts.count == 2)
        #expect(receiver.posts[0].body == receiver.posts[1].body)
        try await server.close()
    }

    /// Production mode's callback rules hold for webhooks: an http (or internal) callback fails verification.
    @Test func productionRefusesAPlainHTTPCallback() async throws {
        let server = try await TestServer.make(mode: .production)
        let subscriptions = try WebhookSubscriptions(services: server.services)
        let refused = await #expect(throws: WebhookSubscriptionError.self) {
            try await subscriptions.subscribe(
                appID: server.app.id, object: .user, callbackURL: "http://127.0.0.1:9/webhook", verifyToken: "t",
                fields: ["email"], version: "v21.0")
        }
        #expect(refused?.code == 2200)
        #expect(
            refused?.message
                == "(#2200) callback verification failed: callback URLs must be https:// in production mode")
        #expect(try await subscriptions.list(appID: server.app.id).isEmpty)
        try await server.close()
    }
}
