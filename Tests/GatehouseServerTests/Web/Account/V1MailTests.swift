import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32: the admin API's mail outbox, sign-up mode and invitations.
@Suite struct V1MailTests {
    static func json(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ body: String)
        async throws -> TestResponse
    {
        try await client.execute(
            uri: "/admin/api/v1" + path, method: method, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: body))
    }

    @Test func anInvitationIsListedReadAndDeletedAndLetsItsAddressSignUp() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            #expect(
                try await client.execute(uri: "/admin/api/v1/signup", method: .get).json["mode"]?.stringValue == "open")
            let set = try await Self.json(client, .put, "/signup", #"{"mode":"invitation"}"#)
            #expect(set.status == .ok)
            #expect(set.json["mode"]?.stringValue == "invitation")
            #expect(try await Self.json(client, .put, "/signup", #"{"mode":"sometimes"}"#).status == .badRequest)

            let invited = try await Self.json(client, .post, "/invitations", #"{"email":" Dana@Example.com"}"#)
            #expect(invited.status == .created)
            #expect(invited.json["email"]?.stringValue == "dana@example.com")
            let id = try #require(invited.json["mail_id"]?.stringValue)
            #expect(try await Self.json(client, .post, "/invitations", #"{"email":"nope"}"#).status == .badRequest)

            let list = try await client.execute(uri: "/admin/api/v1/mail?to=DANA@example.com", method: .get)
            #expect(list.status == .ok)
            #expect(list.json["data"]?.arrayValue?.count == 1)
            let message = try await client.execute(uri: "/admin/api/v1/mail/\(id)", method: .get)
            #expect(message.json["kind"]?.stringValue == "invitation")
            #expect(message.json["status"]?.stringValue == "kept")
            let link = try #require(message.json["links"]?.arrayValue?.first?.stringValue)
            #expect(link.hasPrefix("http://gatehouse.test/account/signup?invitation="))

            // Without the invitation the form is refused; with it, that address (only) signs up.
            let browser = Browser(client)
            #expect(try await browser.get("/account/signup").status == .forbidden)
            let form = try await browser.get(String(link.dropFirst("http://gatehouse.test".count)))
            #expect(form.status == .ok)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: form.text))
            let code = try #require(Browser.hiddenValue("invitation", in: form.text))
            let other = try await browser.post(
                "/account/signup",
                form: SignUpAndResetTests.signUpForm(csrf, email: "eve@example.com") + [("invitation", code)])
            #expect(other.status == .forbidden)
            let done = try await browser.post(
                "/account/signup",
                form: SignUpAndResetTests.signUpForm(csrf, email: "dana@example.com") + [("invitation", code)])
            #expect(done.status == .ok)
            #expect(
                try await server.services.storage.users.find(email: "dana@example.com")?.accountState == .unconfirmed)

            #expect(try await client.execute(uri: "/admin/api/v1/mail/\(id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/admin/api/v1/mail/\(id)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/admin/api/v1/mail", method: .delete).status == .noContent)
            #expect(
                try await client.execute(uri: "/admin/api/v1/mail", method: .get).json["data"]?.arrayValue?.isEmpty
                    == true)
        }
    }

    /// The console sends the same invitation (`AccountMailer.invite`), behind its CSRF check.
    @Test func theConsoleSendsAnInvitation() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/mail")
            #expect(page.text.contains(#"action="/console/mail/invite""#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let forged = try await browser.post("/console/mail/invite", form: [("email", "gus@example.com")])
            #expect(forged.status == .forbidden)
            let bad = try await browser.post("/console/mail/invite", form: [("csrf_token", csrf), ("email", "gus")])
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains("Enter the email address to invite."))
            #expect(try await server.services.storage.mail?.list(to: nil, limit: 10).isEmpty == true)

            let sent = try await browser.post(
                "/console/mail/invite", form: [("csrf_token", csrf), ("email", " Gus@Example.com ")])
            #expect(sent.status == .seeOther)
            #expect(sent.location == "/console/mail?notice=invited")
            let messages = try await server.services.storage.mail?.list(to: "gus@example.com", limit: 10) ?? []
            #expect(messages.map(\.kind) == ["invitation"])
            #expect(messages.first?.text.contains("http://gatehouse.test/account/signup?invitation=") == true)
            let shown = try await browser.get(try #require(sent.location))
            #expect(shown.text.contains("The invitation is sent"))
            #expect(shown.text.contains("gus@example.com"))
        }
    }
}
