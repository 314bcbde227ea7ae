import Foundation
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 42 item 4: the console's Webhooks page shows an app's subscriptions and each notification (payload,
/// signature, attempts, the callback's answer), subscribes through the same verification, and resends one.
@Suite struct ConsoleWebhooksTests {
    @Test func thePageShowsSubscribesAndResends() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await server.run { client in
            let browser = Browser(client)
            let path = "/console/apps/\(server.app.id)/webhooks"
            let empty = try await browser.get(path)
            #expect(empty.status == .ok)
            #expect(empty.text.contains("No subscriptions."))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: empty.text))

            let forged = try await browser.post(
                path + "/subscribe",
                form: [
                    ("object", "permissions"), ("callback_url", "https://hooks.example/fb"), ("verify_token", "t"),
                    ("fields", "connected"),
                ])
            #expect(forged.status == .forbidden)
            let made = try await browser.post(
                path + "/subscribe",
                form: [
                    ("csrf_token", csrf), ("object", "permissions"), ("callback_url", "https://hooks.example/fb"),
                    ("verify_token", "t"), ("fields", "connected,email"),
                ])
            #expect(made.status == .seeOther)
            #expect(made.location == path + "?notice=saved")
            receiver.verification = .answer(status: 200, body: "nope")
            let refused = try await browser.post(
                path + "/subscribe",
                form: [
                    ("csrf_token", csrf), ("object", "user"), ("callback_url", "https://hooks.example/fb"),
                    ("verify_token", "t"), ("fields", "email"),
                ])
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("(#2201) response does not match challenge"))

            _ = try await server.token(for: server.alice, granted: ["public_profile", "email"])
            let sent = try #require(await server.services.webhookOutbox?.delivering.deliverDue().first)
            let page = try await browser.get(path)
            #expect(page.text.contains("https://hooks.example/fb"))
            #expect(page.text.contains("connected, email"))
            #expect(page.text.contains("delivered"))
            #expect(page.text.contains(try #require(sent.signature)))
            #expect(page.text.contains("&quot;verb&quot; : &quot;connected&quot;"))

            let resent = try await browser.post(path + "/\(sent.id)/resend", form: [("csrf_token", csrf)])
            #expect(resent.status == .seeOther)
            #expect(resent.location == path + "?notice=resent")
            let again = try #require(await server.services.webhookOutbox?.delivering.deliverDue().first)
            #expect(again.id != sent.id)
            #expect(again.body == sent.body)
            #expect(receiver.posts.count == 2)
        }
    }
}
