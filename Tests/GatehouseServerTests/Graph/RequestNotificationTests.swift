import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

/// Seed 002's requests dialog with `notification_text`: the recipient sees the request with its text in
/// `/me/apprequests` and in the console, and accepts or deletes it there.
@Suite struct RequestNotificationTests {
    @Test func theNotificationTextReachesTheRecipientWhoAcceptsOrDeletesIt() async throws {
        let server = try await TestServer.make()
        let bobScoped = try await server.scopedID(server.bob), aliceScoped = try await server.scopedID(server.alice)
        let bobToken = try await server.token(for: server.bob, granted: ["public_profile"])
        try await server.run { client in
            let browser = Browser(client)
            // The seed's parameters, word for word.
            let query = SocialDialogTests.query(
                server,
                [
                    ("message", "invites you to check out some great stuff."), ("notification_text", "Check this out"),
                ])
            let page = try await SocialDialogTests.open(
                browser, "/dialog/apprequests", query, email: "alice@example.com", password: "alice-password")
            let sent = try await browser.post(
                "/dialog/apprequests/send", form: SocialDialogTests.form(page, [("action", "send"), ("to", bobScoped)]))
            #expect(sent.status == .seeOther)
            let location = try #require(sent.location)
            let requestID = try #require(redirectParameters(location)["request"])

            let list = try await graph(client, .get, "/v27.0/me/apprequests", [("access_token", bobToken)])
            #expect(
                list.text
                    == #"{"data":[{"id":"\#(requestID)_\#(bobScoped)","application":{"name":"Test App","#
                    + #""id":"\#(server.app.id)"},"to":{"name":"Bob Brown","id":"\#(bobScoped)"},"#
                    + #""from":{"name":"Alice Anders","id":"\#(aliceScoped)"},"message":"invites you to check "#
                    + #"out some great stuff.","notification_text":"Check this out","created_time":"2027-01-15T08:00:00+0000"}]}"#
            )

            // The console shows Bob's notification with Accept and Delete.
            let console = try await browser.get("/console/social")
            #expect(
                console.text.contains(
                    "<td>Alice Anders</td><td>Bob Brown</td><td>invites you to check out some great stuff.</td><td>Check this out</td>"
                ))
            #expect(console.text.contains("action=\"/console/requests/\(requestID)/accept\""))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: console.text))
            let accepted = try await browser.post(
                "/console/requests/\(requestID)/accept", form: [("csrf_token", csrf), ("recipient", server.bob.id)])
            #expect(accepted.location == "/console/social?notice=accepted")
            let stored = try await server.services.storage.requests.find(
                requestID: requestID, recipientID: server.bob.id)
            #expect(stored?.acceptedAt == server.clock.now())
            #expect(stored?.notificationText == "Check this out")
            // Accepted, it waits for the app to delete it, as on Facebook.
            let still = try await graph(client, .get, "/me/apprequests", [("access_token", bobToken)])
            #expect(still.json["data"]?.arrayValue?.count == 1)
            let after = try await browser.get("/console/social?notice=accepted")
            #expect(after.text.contains("Accepted. The request stays in /me/apprequests until the app deletes it"))
            #expect(!after.text.contains("action=\"/console/requests/\(requestID)/accept\""))
            let unknown = try await browser.post(
                "/console/requests/\(requestID)/accept", form: [("csrf_token", csrf), ("recipient", server.alice.id)])
            #expect(unknown.status == .badRequest)
            #expect(unknown.text.contains("There is no such request for that person."))

            // Deleting it from the notifications removes it.
            let deleted = try await browser.post(
                "/console/requests/\(requestID)/delete", form: [("csrf_token", csrf), ("recipient", server.bob.id)])
            #expect(deleted.location == "/console/social?notice=cleared")
            let none = try await graph(client, .get, "/me/apprequests", [("access_token", bobToken)])
            #expect(none.text == #"{"data":[]}"#)
        }
    }

    @Test func aRequestWithoutNotificationTextKeepsFacebooksShapeAndATooLongTextIsRefused() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let long = try await client.execute(
                uri: "/dialog/apprequests?"
                    + SocialDialogTests.query(
                        server, [("message", "hi"), ("notification_text", String(repeating: "x", count: 1001))]),
                method: .get)
            #expect(
                long.location == TestServer.redirectURI
                    + "?error_code=100&error_message=notification_text+is+too+long+%281000+characters+at+most%29#_=_")
            let record = AppRequestRecord(
                requestID: "1", appID: server.app.id, senderID: server.alice.id, recipientID: server.bob.id,
                message: "m", createdAt: server.clock.now())
            let rendered = try await AppRequestEndpoints(services: server.services).render(
                record, appID: server.app.id, withRecipient: true)
            #expect(rendered["notification_text"] == nil)
            #expect(rendered["message"] == "m")
        }
    }
}
