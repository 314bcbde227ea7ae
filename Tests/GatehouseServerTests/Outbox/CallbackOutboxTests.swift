import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import NIOCore
import Testing
import GatehouseTestSupport
import HTTPTypes

/// The callback outbox: back-off by the injected clock, retries that survive a restart, the data-deletion
/// reply, and the person's "delete my data" action with the confirmation code shown back to them.
@Suite struct CallbackOutboxTests {
    static let reply = "{ url: 'https://app.example.com/deletion?id=42', confirmation_code: 'DEL-42' }"

    @Test func failsTwiceThenSucceedsAcrossARestart() async throws {
        let inbox = AppBackendInbox(failFirst: 2, reply: Self.reply)
        try await AppBackendInbox.serve(inbox) { url in
            let clock = AdjustableClock(fixed: Date(timeIntervalSince1970: 1_800_000_000))
            let first = try await OutboxTestEnvironment.make(deauthorizeURL: nil, dataDeletionURL: url, clock: clock)
            // Removed only after `second`, which reopens the same database, is done with it.
            defer { first.scratch.remove() }
            let t0 = clock.now()
            let queued = try #require(
                try await first.services.outbox.enqueue(
                    .dataDeletion, app: first.app, userID: first.user.id, scopedUserID: first.scopedID, at: t0))
            #expect(queued.nextAttemptAt == t0)

            let attempt1 = await first.services.outbox.deliverDue()
            #expect(attempt1.first?.attempts == 1)
            #expect(attempt1.first?.lastError == "HTTP 500")
            #expect(attempt1.first?.nextAttemptAt == t0.addingTimeInterval(30))
            clock.advance(by: 29)
            #expect(await first.services.outbox.deliverDue().isEmpty)
            clock.advance(by: 1)
            let attempt2 = await first.services.outbox.deliverDue()
            #expect(attempt2.first?.attempts == 2)
            #expect(attempt2.first?.nextAttemptAt == t0.addingTimeInterval(30 + 120))
            try await first.services.storage.shutdown()

            // A new process over the same database picks the retry up when it is due.
            let second = try await OutboxTestEnvironment.make(
                deauthorizeURL: nil, dataDeletionURL: url, scratch: first.scratch, clock: clock)
            clock.advance(by: 120)
            let attempt3 = await second.services.outbox.deliverDue()
            try await second.services.storage.shutdown()
            let done = try #require(attempt3.first)
            #expect(done.attempts == 3)
            #expect(done.deliveredAt == t0.addingTimeInterval(150))
            #expect(done.nextAttemptAt == nil)
            #expect(done.confirmationCode == "DEL-42")
            #expect(done.statusURL == "https://app.example.com/deletion?id=42")

            let forms = await inbox.forms()
            #expect(forms.count == 3)
            let payload = try SignedRequest.parse(forms[2]["signed_request"] ?? "", secret: first.app.secret)
            #expect(
                payload.serialized()
                    == #"{"algorithm":"HMAC-SHA256","expires":1800003600,"issued_at":1800000000,"user_id":"\#(first.scopedID)"}"#
            )
        }
    }

    @Test func backoffScheduleThenGivesUp() {
        let now = Date(timeIntervalSince1970: 0)
        let policy = OutboxPolicy.appCallbacks
        #expect(policy.nextAttempt(afterFailedAttempts: 1, now: now) == Date(timeIntervalSince1970: 30))
        #expect(policy.nextAttempt(afterFailedAttempts: 2, now: now) == Date(timeIntervalSince1970: 120))
        #expect(policy.nextAttempt(afterFailedAttempts: 8, now: now) == Date(timeIntervalSince1970: 12 * 3600))
        #expect(policy.nextAttempt(afterFailedAttempts: 9, now: now) == nil)
    }

    @Test func readsBothReplyForms() {
        func parse(_ text: String) -> [String]? {
            DataDeletionReply.parse(Array(text.utf8)).map { [$0.url, $0.confirmationCode] }
        }
        #expect(
            parse(#"{"url":"https://a.example/s?id=1","confirmation_code":"c1"}"#) == [
                "https://a.example/s?id=1", "c1",
            ])
        #expect(parse("{ url: 'https://a.example/s', confirmation_code: 'c2' }") == ["https://a.example/s", "c2"])
        #expect(parse(#"{"url":"javascript:alert(1)","confirmation_code":"c"}"#) == nil)
        #expect(parse(#"{"confirmation_code":"c"}"#) == nil)
        #expect(parse("not json at all") == nil)
        #expect(parse("") == nil)
    }

    @Test func personDeletesTheirDataAndSeesTheConfirmationCode() async throws {
        let inbox = AppBackendInbox(
            failFirst: 0, reply: #"{"url":"https://app.example.com/deletion?id=7","confirmation_code":"CONF-7"}"#)
        try await AppBackendInbox.serve(inbox) { url in
            let server = try await TestServer.make()
            var updated = server.app
            updated.dataDeletionCallbackURL = url
            try await server.services.storage.apps.update(updated)
            let app = updated
            let scoped = try await server.scopedID(server.alice)
            try await server.run { client in
                let browser = Browser(client)
                let query = FormEncoding.encode([("client_id", app.id), ("redirect_uri", TestServer.redirectURI)])
                _ = try await browser.logIn(query: query, email: "alice@example.com", password: "alice-password")
                let list = try await browser.get("/settings/apps")
                #expect(list.status == .ok)
                #expect(list.text.contains("and delete my data from it</button>"))
                let csrf = Browser.hiddenValue("csrf_token", in: list.text) ?? ""
                let posted = try await browser.post(
                    "/settings/apps/delete-data", form: [("csrf_token", csrf), ("app_id", app.id)])
                #expect(posted.status == .seeOther)
                #expect(posted.location == "/settings/apps?notice=deletion")
                let after = try await browser.get("/settings/apps?notice=deletion")
                #expect(after.text.contains("asked to delete your data"))
                #expect(after.text.contains("<code class=\"confirmation-code\">CONF-7</code>"))
                let decoded = after.text.replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(
                    of: "&#x3D;", with: "=")
                #expect(decoded.contains("<a class=\"status-url\" href=\"https://app.example.com/deletion?id=7\""))
                #expect(after.text.contains("Received by the app"))
                #expect(!after.text.contains("action=\"/settings/apps/remove\""))
                // The app was removed too, and told so through its deauthorize callback.
                #expect(try await server.services.storage.grants.find(appID: app.id, userID: server.alice.id) == nil)
                #expect(server.notifier.removed.map { $0.appID } == [app.id])
                let forged = try await browser.post("/settings/apps/delete-data", form: [("app_id", app.id)])
                #expect(forged.status == .forbidden)
            }
            let forms = await inbox.forms()
            #expect(forms.count == 1)
            let payload = try SignedRequest.parse(forms[0]["signed_request"] ?? "", secret: app.secret)
            #expect(payload["user_id"]?.stringValue == scoped)
        }
    }
}
