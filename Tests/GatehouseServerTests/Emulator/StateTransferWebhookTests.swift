import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing

/// Issue 42 item 1: `gatehouse state export` and `import` (and `GET`/`PUT /admin/api/v1/state`) carry apps'
/// Webhooks subscriptions exactly, without a new verification request; an export from before them still imports.
@Suite struct StateTransferWebhookTests {
    /// An app subscribed to `user` and `permissions` (both callbacks verified by `receiver`): the services and
    /// the app's subscriptions as stored.
    static func subscribedApp(
        _ storage: Storage, _ receiver: RecordingWebhookTransport
    ) async throws -> (GatehouseServices, AppRecord, [WebhookSubscriptionRecord]) {
        let services = ScenarioSubscriptionTests.services(storage, receiver)
        let app = try await services.accounts.createApp(name: "Shop", redirectURIs: ["https://shop.example/cb"])
        let subscriptions = try WebhookSubscriptions(services: services)
        try await subscriptions.subscribe(
            appID: app.id, object: .user, callbackURL: "https://hooks.example/fb", verifyToken: "mine",
            fields: ["email", "name"], version: "v21.0")
        try await subscriptions.subscribe(
            appID: app.id, object: .permissions, callbackURL: "https://hooks.example/perms", verifyToken: "other",
            fields: ["connected"], version: "v27.0")
        return (services, app, try await subscriptions.list(appID: app.id))
    }

    @Test func exportThenImportRoundTripsSubscriptionsWithoutVerifying() async throws {
        try await withEachBackend { storage in
            let receiver = RecordingWebhookTransport()
            let (services, app, before) = try await Self.subscribedApp(storage, receiver)
            #expect(before.count == 2)
            let transfer = StateTransfer(services: services)
            let exported = try EmulatorState.encoder.encode(try await transfer.export())
            // Parsed in the file's order (the export sorts its keys), so two exports compare as their bytes do.
            let json = try JSONValue.parse(String(decoding: exported, as: UTF8.self))
            #expect(json["webhookSubscriptions"]?.arrayValue?.map { $0["verifyToken"] } == ["other", "mine"])
            #expect(json["version"] == 1)

            let state = try StateTransfer.decode(exported)
            #expect(state.webhookSubscriptions == before)
            var empty = state
            (empty.apps, empty.users, empty.webhookSubscriptions) = ([], [], [])
            try await transfer.replace(with: empty)
            #expect(try await storage.webhooks?.subscriptions(appID: app.id) == [])

            try await transfer.replace(with: state)
            #expect(try await storage.webhooks?.subscriptions(appID: app.id) == before)
            // Imported as they were: no callback was asked again.
            #expect(receiver.verifications.count == 2)
            // A second export is the first one's subscriptions, byte for byte.
            let again = try JSONValue.parse(
                String(decoding: try EmulatorState.encoder.encode(try await transfer.export()), as: UTF8.self))
            #expect(again["webhookSubscriptions"] == json["webhookSubscriptions"])
        }
    }

    @Test func anExportFromBeforeWebhooksStillImports() async throws {
        try await withEachBackend { storage in
            let receiver = RecordingWebhookTransport()
            let (services, app, _) = try await Self.subscribedApp(storage, receiver)
            let transfer = StateTransfer(services: services)
            var older = try #require(
                try JSONDecoder().decode(
                    JSONValue.self, from: try EmulatorState.encoder.encode(try await transfer.export())
                ).objectValue)
            older["webhookSubscriptions"] = nil
            let text = JSONValue.object(older).serialized()
            #expect(!text.contains("webhookSubscriptions"))
            let state = try StateTransfer.decode(Data(text.utf8))
            #expect(state.webhookSubscriptions == nil)
            try await transfer.replace(with: state)
            #expect(try await storage.apps.find(id: app.id)?.name == "Shop")
            #expect(try await storage.webhooks?.subscriptions(appID: app.id) == [])
        }
    }

    @Test func aSubscriptionOfAnAppTheExportLacksIsRefused() async throws {
        try await withEachBackend { storage in
            let (services, _, _) = try await Self.subscribedApp(storage, RecordingWebhookTransport())
            var state = try #require(
                try JSONDecoder().decode(
                    JSONValue.self,
                    from: try EmulatorState.encoder.encode(try await StateTransfer(services: services).export())
                ).objectValue)
            state["apps"] = []
            #expect {
                try StateTransfer.decode(Data(JSONValue.object(state).serialized().utf8))
            } throws: { error in
                "\(error)".hasPrefix("webhookSubscriptions names app ")
                    && "\(error)".hasSuffix(", which the export does not have")
            }
        }
    }

    @Test func theAdminAPICarriesSubscriptionsToAnotherServer() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await WebhookSubscriptions(services: server.services).subscribe(
            appID: server.app.id, object: .user, callbackURL: "https://hooks.example/fb", verifyToken: "mine",
            fields: ["email"], version: "v21.0")
        let box = ExportBox()
        try await server.v1 { api in box.data = Data(buffer: try await api.get("/state").body) }
        let otherReceiver = RecordingWebhookTransport()
        let other = try await TestServer.make(webhookTransport: otherReceiver)
        try await other.v1 { api in
            let imported = try await api.put("/state", String(decoding: box.data, as: UTF8.self))
            #expect(imported.status == .ok)
            let listed = try await api.client.execute(
                uri: "/v21.0/\(server.app.id)/subscriptions?access_token=\(server.appToken)", method: .get)
            #expect(
                listed.text
                    == #"{"data":[{"object":"user","callback_url":"https://hooks.example/fb","active":true,"#
                    + #""fields":[{"name":"email","version":"v21.0"}]}]}"#)
        }
        #expect(otherReceiver.requests.isEmpty)
    }
}
