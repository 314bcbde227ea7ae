import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

/// Device login has one consent step: publish permissions are listed with the read ones and get the default audience.
@Suite struct DevicePublishTests {
    @Test func deviceConsentGrantsPublishActionsWithFriendsAudience() async throws {
        let server = try await TestServer.make(approved: ["user_friends", "publish_actions"])
        let token = "\(server.app.id)|\(server.app.clientToken)"
        try await server.run { client in
            let start = try await DeviceFlowTests.post(
                client, "/device/login", [("access_token", token), ("scope", "email,publish_actions")])
            let userCode = try #require(start.json["user_code"]?.stringValue)
            let browser = Browser(client)
            let login = try await browser.get("/device")
            let signedIn = try await browser.post(
                "/device/signin",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: login.text) ?? ""),
                    ("dialog", Browser.hiddenValue("dialog", in: login.text) ?? ""),
                    ("email", "alice@example.com"), ("password", "alice-password"),
                ])
            #expect(signedIn.status == .seeOther)
            let consent = try await browser.get("/device?user_code=\(userCode)")
            #expect(Browser.offered(in: consent.text) == ["public_profile", "email", "publish_actions"])
            let done = try await browser.post(
                "/device/consent",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: consent.text) ?? ""),
                    ("dialog", Browser.hiddenValue("dialog", in: consent.text) ?? ""),
                    ("action", "continue"), ("permission", "public_profile"), ("permission", "publish_actions"),
                ])
            #expect(done.status == .ok)
            let grant = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            #expect(grant?.granted == ["public_profile", "publish_actions"])
            #expect(grant?.declined == ["email"])
            #expect(grant?.defaultAudience == .friends)
        }
    }
}
