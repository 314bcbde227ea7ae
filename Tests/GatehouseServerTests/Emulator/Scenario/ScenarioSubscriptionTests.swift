import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport
import Logging
import Testing

/// Issue 42 item 1: an app in a scenario file declares its Webhooks subscriptions, checked by the Graph edge's
/// rules, each callback verified before anything is written (unless `verify: false`, in development mode).
@Suite struct ScenarioSubscriptionTests {
    static let appID = "1960000000000009"

    static func file(
        fields: String = "[email, name]", url: String = "https://hooks.example/fb", token: String = "mine",
        verify: String = "", granted: String = "[email]"
    ) -> String {
        """
        apps:
          shop:
            id: "\(appID)"
            name: Shop
            subscriptions:
              - {object: user, callback_url: "\(url)", fields: \(fields), verify_token: \(token)\(verify)}
              - object: permissions
                callback_url: https://hooks.example/perms
                fields: [email, connected]
                verify_token: other
        people:
          alice: {id: "100000000000901", email: alice@example.com, first_name: Alice, last_name: Anders}
        grants:
          - {app: shop, person: alice, granted: \(granted)}
        """
    }

    /// Development-mode services over `storage`, whose callbacks go to `receiver`.
    static func services(
        _ storage: Storage, _ receiver: RecordingWebhookTransport, mode: ServerMode = .development
    ) -> GatehouseServices {
        var logger = StorageBackends.logger
        logger.logLevel = .critical
        let clock = AdjustableClock(fixed: ScenarioServer.start)
        return GatehouseServices(
            configuration: GatehouseConfiguration(
                dataDirectory: FileManager.default.temporaryDirectory.path, publicURL: "http://gatehouse.test",
                mode: mode),
            storage: storage, clock: clock, passwords: BcryptPasswordHasher(cost: 4), callbacks: RecordingNotifier(),
            logger: logger, clockControl: mode == .development ? clock : nil, webhookTransport: receiver)
    }

    @Test func subscriptionsParseWithTheirFieldsAndVerifyFlag() throws {
        let scenario = try ScenarioFixtures.parse(Self.file(verify: ", verify: false"))
        let subscriptions = try #require(scenario.apps.first?.subscriptions)
        #expect(subscriptions.map(\.object) == [.user, .permissions])
        #expect(subscriptions.map(\.fields) == [["email", "name"], ["email", "connected"]])
        #expect(subscriptions.map(\.callbackURL) == ["https://hooks.example/fb", "https://hooks.example/perms"])
        #expect(subscriptions.map(\.verifyToken) == ["mine", "other"])
        #expect(subscriptions.map(\.verify) == [false, true])
        #expect(
            subscriptions.map(\.at) == [ScenarioLocation(line: 6, column: 9), ScenarioLocation(line: 7, column: 9)])
    }

    @Test func badSubscriptionsAreReportedAtTheirLinesWithTheEdgesWording() {
        let yaml = """
            apps:
              shop:
                name: Shop
                subscriptions:
                  - {object: page, callback_url: "https://a.example", fields: [email], verify_token: t}
                  - {object: user, callback_url: "ftp://x", fields: [email, shoe_size, email], verify_token: t}
                  - {object: user, callback_url: "https://a.example", fields: [], verify_token: t}
                  - {object: permissions, fields: [connected, user_likes_cats], colour: red}
            """
        let userFields = WebhookObject.userFields.map(\.name).joined(separator: ", ")
        let expected = [
            #"test.yaml:5:18: apps.shop.subscriptions[0].object: Param object must be one of {user, permissions} - "#
                + #"got "page""#,
            "test.yaml:6:38: apps.shop.subscriptions[1].callback_url: Param callback_url must be a valid URL",
            #"test.yaml:6:65: apps.shop.subscriptions[1].fields[1]: "shoe_size" is not a valid field for object "#
                + #""user"; the user object's fields are \#(userFields)"#,
            #"test.yaml:6:76: apps.shop.subscriptions[1].fields[2]: "email" is listed twice"#,
            "test.yaml:7:9: apps.shop.subscriptions[2].fields: a subscription needs at least one field",
            "test.yaml:7:18: apps.shop.subscriptions[2].object: this app already subscribes to user above; list its "
                + "fields in one entry",
            "test.yaml:8:9: apps.shop.subscriptions[3]: a subscription needs callback_url",
            "test.yaml:8:9: apps.shop.subscriptions[3]: a subscription needs verify_token",
            #"test.yaml:8:51: apps.shop.subscriptions[3].fields[1]: "user_likes_cats" is not a valid field for "#
                + #"object "permissions"; the permissions object's fields are permission names and connected"#,
            "test.yaml:8:69: apps.shop.subscriptions[3].colour: unknown key; expected one of callback_url, fields, "
                + "object, verify, verify_token",
        ]
        #expect(ScenarioFixtures.errors(yaml).sorted() == expected.sorted())
    }

    @Test func applyVerifiesEachCallbackOnceAndAgainOnlyWhenItMoves() async throws {
        try await withEachBackend { storage in
            let receiver = RecordingWebhookTransport()
            let loader = ScenarioLoader(services: Self.services(storage, receiver))
            let webhooks = try #require(storage.webhooks)
            let first = try await loader.apply(try ScenarioFixtures.parse(Self.file()), file: "test.yaml")
            #expect(
                first.changes.suffix(2).map(\.description) == [
                    "apps.shop.subscriptions[0]: shop has no user subscription on the server",
                    "apps.shop.subscriptions[1]: shop has no permissions subscription on the server",
                ])
            #expect(receiver.verifications.map { $0.query["hub.verify_token"] } == ["mine", "other"])
            #expect(receiver.verifications.map { $0.url.hasPrefix("https://hooks.example/fb?") } == [true, false])
            #expect(receiver.verifications.last?.url.hasPrefix("https://hooks.example/perms?") == true)
            let saved = try await webhooks.subscriptions(appID: Self.appID)
            #expect(saved.map(\.object) == [.permissions, .user])
            #expect(
                saved.first { $0.object == .user }?.fields == [
                    WebhookField(name: "email", version: GraphAPIVersion.current),
                    WebhookField(name: "name", version: GraphAPIVersion.current),
                ])
            // Subscriptions are written last: the file's own grant is where they start, not a change to announce.
            #expect(try await webhooks.deliveries(appID: Self.appID, limit: 10).isEmpty)

            // The same file again changes nothing and calls no callback.
            let again = try await loader.apply(try ScenarioFixtures.parse(Self.file()), file: "test.yaml")
            #expect(again.changes.isEmpty)
            #expect(receiver.verifications.count == 2)

            // New fields for the same callback are saved without a verification; a moved callback is verified.
            let fields = try await loader.apply(
                try ScenarioFixtures.parse(Self.file(fields: "[name, location]")), file: "test.yaml")
            #expect(
                fields.changes.map(\.description) == [
                    "apps.shop.subscriptions[0]: fields are [email, name] on the server, [name, location] in the file"
                ])
            #expect(receiver.verifications.count == 2)
            _ = try await loader.apply(
                try ScenarioFixtures.parse(Self.file(fields: "[name, location]", url: "https://moved.example/h")),
                file: "test.yaml")
            #expect(receiver.verifications.count == 3)
            #expect(receiver.verifications.last?.url.hasPrefix("https://moved.example/h?hub.mode=subscribe") == true)

            // A grant the file changes afterwards is announced to the permissions subscription.
            _ = try await loader.apply(
                try ScenarioFixtures.parse(
                    Self.file(fields: "[name, location]", url: "https://moved.example/h", granted: "[]")),
                file: "test.yaml")
            let sent = try await webhooks.deliveries(appID: Self.appID, limit: 10)
            #expect(sent.map(\.object) == [.permissions])
            #expect(sent.first?.body.contains(#""field":"email","value":{"verb":"revoked"}"#) == true)
        }
    }

    @Test func aCallbackThatFailsVerificationStopsTheWholeFile() async throws {
        try await withEachBackend { storage in
            let receiver = RecordingWebhookTransport()
            receiver.verification = .answer(status: 403, body: "")
            let loader = ScenarioLoader(services: Self.services(storage, receiver))
            let scenario = try ScenarioFixtures.parse(Self.file())
            do {
                try await loader.apply(scenario, file: "test.yaml")
                Issue.record("a refused verification must stop the apply")
            } catch let errors as ScenarioErrors {
                let hint = " (verify: false keeps it unverified, in development mode)"
                #expect(
                    errors.errors.map(\.description) == [
                        "test.yaml:6:9: apps.shop.subscriptions[0].callback_url: callback verification failed: "
                            + "Received HTTP code: 403" + hint,
                        "test.yaml:7:9: apps.shop.subscriptions[1].callback_url: callback verification failed: "
                            + "Received HTTP code: 403" + hint,
                    ])
            }
            // Nothing was written: not the app, not the person, not the subscriptions.
            #expect(try await storage.apps.find(id: Self.appID) == nil)
            #expect(try await storage.users.find(id: "100000000000901") == nil)
            // A check calls no callback.
            let check = try await loader.apply(scenario, file: "test.yaml", dryRun: true)
            #expect(check.changes.count == 5)
            #expect(receiver.verifications.count == 2)

            // verify: false keeps it without asking the callback.
            receiver.verification = .echo
            let unverified = try await loader.apply(
                try ScenarioFixtures.parse(Self.file(verify: ", verify: false")), file: "test.yaml")
            #expect(!unverified.changes.isEmpty)
            #expect(receiver.verifications.count == 3)  // only the permissions subscription's
            #expect(try await storage.webhooks?.subscriptions(appID: Self.appID).count == 2)
        }
    }

    @Test func productionRefusesAnUnverifiedSubscription() async throws {
        let server = try await ScenarioServer.make(mode: .production)
        let receiver = RecordingWebhookTransport()
        let loader = ScenarioLoader(services: Self.services(server.services.storage, receiver, mode: .production))
        do {
            try await loader.apply(try ScenarioFixtures.parse(Self.file(verify: ", verify: false")), file: "test.yaml")
            Issue.record("production must refuse verify: false")
        } catch let errors as ScenarioErrors {
            #expect(
                errors.errors.map(\.description) == [
                    "test.yaml:6:9: apps.shop.subscriptions[0].verify: verify: false is for development mode only; "
                        + "in production every callback is verified"
                ])
        }
        #expect(receiver.requests.isEmpty)
        #expect(try await server.services.storage.apps.find(id: Self.appID) == nil)
        try await server.close()
    }
}
